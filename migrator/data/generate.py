"""Generate `torch_npu_api.json` from the released wheels: `python -m migrator.data.generate`.

The wheels are downloaded with `pip download --no-deps --only-binary=:all:` into a cache
directory and read as zip files; nothing is installed or imported (an installed torch-npu
breaks `import torch` on a machine without CANN, see ascend-facts.md section 1). From each
wheel it reads:

- public names: the Python sources, parsed with `ast`. A module's names are everything bound
  at its top level (definitions, assignments, `from m import a` and `import m as a` except of
  the standard library and typing_extensions, `from m import *` resolved inside the wheel;
  in every branch of `if`/`try`), its `__all__`, and its submodules; names starting with
  `_` are left out. Functions and classes (their `__init__`) get their parameter names.
  Names that only appear at run time (set by `setattr` from C++ or by patch functions) are
  not seen, with one exception below;
- `torch_npu`'s top level also gets every op of its `custom` kernel section: torch_npu copies
  `dir(torch.ops.npu)` onto itself at import (`torch_npu/__init__.py` in 2.6.0,
  `torch_npu/_init/core/_exports.py` later), so `torch_npu.npu_apply_adam_w` is such an op;
- the NPU kernels: `torch_npu/csrc/aten/npu_native_functions.yaml` and
  `npu_native_functions_by_codegen.yaml`, the inputs of torch_npu's code generator that
  writes the PrivateUse1 registrations. Sections `supported` and `quant` are aten ops with an
  NPU kernel, `custom` the ops of the `npu` namespace, `autograd` the ops with an NPU autograd
  kernel (`symint` only flags signatures). Checked against `libtorch_npu.so`'s strings for the
  fused optimizers: the same `_fused_adam_` / `_fused_adamw_` / `_fused_sgd_` sets;
- from the torch wheel, `torchgen/packaged/ATen/native/native_functions.yaml` (torch's own
  op list): the aten ops that need a kernel per device (`backend_ops`: a `CUDA` key in
  their `dispatch`, directly or through `structured_delegate`), as opposed to composite
  ops that torch computes from other ops on any device. An op of `backend_ops` that a
  torch-npu release's kernel list lacks runs through torch_npu's CPU fallback ("... is not
  currently supported on the NPU backend and will fall back to run on the CPU",
  `libtorch_npu.so`);
- the dist-info METADATA: the `Requires-Dist: torch` pin and the CANN pairing, from the
  README's "Ascend Auxiliary Software" table where it lists the release itself, else from an
  "Install CANN X" sentence, else none.

`--check` regenerates from the cached wheels (downloading what is missing) and exits 1 if
the committed file differs.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

DATA_FILE = Path(__file__).with_name("torch_npu_api.json")

# Pinned so that the file is reproducible; `pip index versions torch-npu` (2026-12-01):
# 2.7.1.post11 is the newest 2.7.1.postN and 2.14.0 the newest release.
TORCH_NPU_RELEASES = ("2.6.0", "2.7.1.post2", "2.7.1.post11", "2.14.0")
MX_DRIVING_RELEASES = ("26.1.0.post2", "26.2.0.post2")
TORCH_RELEASES = ("2.7.1",)

TORCH_NPU_MODULES = (
    "torch_npu",
    "torch_npu.npu",
    "torch_npu.npu.amp",
    "torch_npu.optim",
    "torch_npu.contrib",
    "torch_npu.profiler",
)
MX_DRIVING_MODULES = ("mx_driving.patcher",)
# What the migration may write or migrated code may call; torch.backends.* is expanded to
# every subpackage of torch/backends in the wheel.
TORCH_MODULES = ("torch.amp", "torch.accelerator", "torch.cuda", "torch.cuda.amp",
                 "torch.backends", "torch.distributed")  # fmt: skip

# The aarch64 wheels: an Ascend host is usually aarch64, and the torch wheel for it on PyPI
# is the CPU-only build (about 100 MB instead of several GB with CUDA).
PLATFORMS = ("manylinux_2_28_aarch64", "manylinux2014_aarch64")
PYTHON_VERSION = "3.11"

_NATIVE_FUNCTIONS = "torchgen/packaged/ATen/native/native_functions.yaml"

_KERNEL_YAMLS = (
    "torch_npu/csrc/aten/npu_native_functions.yaml",
    "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml",
)


class GenerateError(Exception):
    """A wheel could not be downloaded or read as expected."""


# Wheels ---------------------------------------------------------------------------------
def _wheel_prefix(project: str, version: str) -> str:
    return f"{project.replace('-', '_')}-{version}-"


def find_wheel(cache: Path, project: str, version: str) -> Path | None:
    found = sorted(cache.glob(_wheel_prefix(project, version) + "*.whl"))
    return found[0] if found else None


def fetch_wheel(cache: Path, project: str, version: str) -> Path:
    """The cached wheel of `project==version`, downloaded (never installed) if missing."""
    cached = find_wheel(cache, project, version)
    if cached is not None:
        return cached
    cache.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    for platform in PLATFORMS:
        command += ["--platform", platform]
    command += ["--python-version", PYTHON_VERSION, "-d", str(cache), f"{project}=={version}"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheel = find_wheel(cache, project, version)
    if done.returncode != 0 or wheel is None:
        raise GenerateError(f"pip download {project}=={version} failed:\n{done.stderr[-2000:]}")
    return wheel


def _wheel_record(path: Path) -> dict[str, Any]:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {"filename": path.name, "sha256": digest, "size": path.stat().st_size}


# Python sources -------------------------------------------------------------------------
def _params(args: ast.arguments, drop_first: bool) -> list[str]:
    """Parameter names in order, with `/`, `*`, `*args` and `**kwargs` markers."""
    out: list[str] = []
    positional = [*args.posonlyargs, *args.args]
    for index, arg in enumerate(positional):
        out.append(arg.arg)
        if args.posonlyargs and index == len(args.posonlyargs) - 1:
            out.append("/")
    if args.vararg is not None:
        out.append("*" + args.vararg.arg)
    elif args.kwonlyargs:
        out.append("*")
    out += [arg.arg for arg in args.kwonlyargs]
    if args.kwarg is not None:
        out.append("**" + args.kwarg.arg)
    if drop_first and positional:
        out.remove(positional[0].arg)
        if out and out[0] == "/":
            out.pop(0)
    return out


def _class_signature(node: ast.ClassDef) -> list[str] | None:
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__":
            return _params(item.args, drop_first=True)
    return None


def _strings(node: ast.expr) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        return [v for v in values if isinstance(v, str)]
    return None


def _helper_module(module: str) -> bool:
    """Names taken from the standard library (typing, os ...) are the module's helpers, not API."""
    top = module.split(".")[0]
    return top in sys.stdlib_module_names or top == "typing_extensions"


def _bound(target: ast.expr) -> Iterator[str]:
    """Names an assignment binds (`a, *b = ...`), not the bases of `os.environ[k] = ...`."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _bound(element)
    elif isinstance(target, ast.Starred):
        yield from _bound(target.value)


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements run at import, through every branch of if/try/with (a superset)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(stmt.orelse)
            yield from _top_level(stmt.finalbody)
        elif isinstance(stmt, ast.With):
            yield from _top_level(stmt.body)


@dataclass
class _Module:
    names: dict[str, list[str] | None]  # every binding, private ones too
    imported: dict[str, tuple[str, str]]  # name -> (module, attribute) of `from m import a`
    star: list[str]  # modules of `from m import *`
    all: list[str] | None


class Sources:
    """The Python modules of one wheel, read with `ast` straight from the zip."""

    def __init__(self, wheel: zipfile.ZipFile) -> None:
        self._files: dict[str, str] = {}
        for info in wheel.infolist():
            name = info.filename
            if not name.endswith(".py") or ".dist-info/" in name:
                continue
            dotted = name[:-3].replace("/", ".")
            if dotted.endswith(".__init__"):
                dotted = dotted[: -len(".__init__")]
            self._files[dotted] = wheel.read(info).decode("utf-8", errors="replace")
        self._parsed: dict[str, _Module] = {}
        self._exports: dict[str, dict[str, list[str] | None]] = {}

    def has(self, module: str) -> bool:
        return module in self._files

    def submodules(self, module: str) -> list[str]:
        prefix = module + "."
        return sorted({m[len(prefix) :].split(".")[0] for m in self._files if m.startswith(prefix)})

    def _resolve(self, module: str, level: int, here: str, is_package: bool) -> str:
        if level == 0:
            return module
        parts = here.split(".")
        base = parts if is_package else parts[:-1]
        base = base[: len(base) - (level - 1)]
        return ".".join([*base, module] if module else base)

    def _parse(self, module: str) -> _Module:
        if module in self._parsed:
            return self._parsed[module]
        tree = ast.parse(self._files[module])
        is_package = bool(self.submodules(module))
        found = _Module({}, {}, [], None)
        self._parsed[module] = found
        for stmt in _top_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.names[stmt.name] = _params(stmt.args, drop_first=False)
            elif isinstance(stmt, ast.ClassDef):
                found.names[stmt.name] = _class_signature(stmt)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname is not None and not _helper_module(alias.name):
                        found.names.setdefault(alias.asname, None)
            elif isinstance(stmt, ast.ImportFrom):
                source = self._resolve(stmt.module or "", stmt.level, module, is_package)
                if _helper_module(source):
                    continue
                for alias in stmt.names:
                    if alias.name == "*":
                        found.star.append(source)
                        continue
                    bound = alias.asname or alias.name
                    found.names[bound] = None
                    found.imported[bound] = (source, alias.name)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    for bound in _bound(target):
                        found.names.setdefault(bound, None)
                if stmt.value is not None and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in targets
                ):
                    listed = _strings(stmt.value)
                    if listed is None and isinstance(stmt.value, ast.BinOp):
                        listed = [
                            *(_strings(stmt.value.left) or []),
                            *(_strings(stmt.value.right) or []),
                        ]
                    if listed is not None:
                        add = isinstance(stmt, ast.AugAssign)
                        found.all = [*(found.all or []), *listed] if add else listed
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                call = stmt.value
                func = call.func
                if (
                    isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "__all__"
                    and call.args
                ):
                    arg = call.args[0]
                    if func.attr == "extend":
                        found.all = [*(found.all or []), *(_strings(arg) or [])]
                    elif func.attr == "append" and isinstance(arg, ast.Constant):
                        found.all = [*(found.all or []), str(arg.value)]
        return found

    def _signature(self, module: str, name: str, depth: int = 0) -> list[str] | None:
        """A name's parameters, following `from m import name` inside the wheel."""
        if depth > 8 or module not in self._files:
            return None
        parsed = self._parse(module)
        if name in parsed.imported:
            source, attribute = parsed.imported[name]
            return self._signature(source, attribute, depth + 1)
        signature = parsed.names.get(name)
        if signature is None and name not in parsed.names:
            for star in parsed.star:
                found = self._signature(star, name, depth + 1)
                if found is not None:
                    return found
        return signature

    def exports(self, module: str) -> dict[str, list[str] | None]:
        """The module's public names, each with its parameters where it is a callable."""
        if module in self._exports:
            return self._exports[module]
        self._exports[module] = {}  # breaks import cycles
        parsed = self._parse(module)
        names: set[str] = set(parsed.names) | set(parsed.all or [])
        for star in parsed.star:
            if star in self._files:
                star_parsed = self._parse(star)
                names |= (
                    set(star_parsed.all) if star_parsed.all is not None else set(self.exports(star))
                )
        names |= set(self.submodules(module))
        result = {
            name: self._signature(module, name)
            for name in sorted(names)
            if not name.startswith("_")
        }
        self._exports[module] = result
        return result


def _module_table(sources: Sources, modules: list[str]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for module in modules:
        if not sources.has(module):
            continue
        exports = sources.exports(module)
        table[module] = {
            "names": sorted(exports),
            "signatures": {n: s for n, s in sorted(exports.items()) if s is not None},
        }
    return table


# Kernels --------------------------------------------------------------------------------
def _schema_params(schema: str) -> list[str]:
    """Parameter names of a native-function schema `name(Tensor a, *, int b=1) -> T`."""
    inner = schema[schema.index("(") + 1 : schema.rindex(")", 0, schema.index("->"))]
    out: list[str] = []
    depth = 0
    current = ""
    for char in inner + ",":
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            part = current.strip()
            current = ""
            if part:
                out.append("*" if part == "*" else part.split("=")[0].split()[-1])
            continue
        current += char
    return out


def _kernel_sections(wheel: zipfile.ZipFile) -> dict[str, dict[str, str | None]]:
    """Section -> op name (with overload) -> schema where the yaml gives one."""
    sections: dict[str, dict[str, str | None]] = {}
    yaml = YAML(typ="safe")
    present = set(wheel.namelist())
    for path in _KERNEL_YAMLS:
        if path not in present:
            raise GenerateError(f"{path} is not in the wheel: where are its kernels listed?")
        loaded = yaml.load(wheel.read(path).decode())
        for section, entries in loaded.items():
            if not isinstance(entries, list):
                continue
            ops = sections.setdefault(section, {})
            for entry in entries:
                func = entry if isinstance(entry, str) else entry.get("func", "")
                name = func.split("(")[0].strip()
                if name:
                    ops[name] = func if "(" in func and "->" in func else ops.get(name)
    return sections


def _kernels(sections: dict[str, dict[str, str | None]]) -> dict[str, list[str]]:
    aten = set(sections.get("supported", {})) | set(sections.get("quant", {}))
    return {
        "aten": sorted(aten),
        "npu": sorted(sections.get("custom", {})),
        "autograd": sorted(sections.get("autograd", {})),
    }


def _backend_ops(wheel: zipfile.ZipFile) -> list[str]:
    """Base names of torch's aten ops whose kernel is per device (a CUDA dispatch entry,
    directly or through `structured_delegate`), from torch's native_functions.yaml."""
    if _NATIVE_FUNCTIONS not in set(wheel.namelist()):
        raise GenerateError(f"{_NATIVE_FUNCTIONS} is not in the torch wheel")
    entries = YAML(typ="safe").load(wheel.read(_NATIVE_FUNCTIONS).decode())
    by_name = {entry["func"].split("(")[0].strip(): entry for entry in entries}

    def per_device(name: str, depth: int = 0) -> bool:
        entry = by_name.get(name)
        if entry is None or depth > 8:
            return False
        keys = {key.strip() for keys in (entry.get("dispatch") or {}) for key in keys.split(",")}
        if "CUDA" in keys:
            return True
        delegate = entry.get("structured_delegate")
        return isinstance(delegate, str) and per_device(delegate, depth + 1)

    return sorted({name.split(".")[0] for name in by_name if per_device(name)})


def _custom_op_exports(sections: dict[str, dict[str, str | None]]) -> dict[str, list[str]]:
    """`torch_npu.<op>` for the ops of the npu namespace, with the schema's parameters."""
    out: dict[str, list[str]] = {}
    for op, schema in sorted(sections.get("custom", {}).items()):
        name, _, overload = op.partition(".")
        if name.startswith("_") or (overload and name in out):
            continue
        out[name] = _schema_params(schema) if schema else []
    return out


# Metadata -------------------------------------------------------------------------------
def _metadata(wheel: zipfile.ZipFile) -> str:
    for name in wheel.namelist():
        if name.endswith(".dist-info/METADATA"):
            return wheel.read(name).decode("utf-8", errors="replace")
    raise GenerateError("no dist-info METADATA in the wheel")


def _requires(metadata: str, project: str) -> str | None:
    for line in metadata.splitlines():
        if line.startswith("Requires-Dist:"):
            requirement = line.split(":", 1)[1].strip()
            if re.match(rf"{project}\b(?![-_])", requirement):
                return requirement
        if not line.strip():
            break
    return None


_CANN_ROW = re.compile(r"^\|\s*(CANN [^|]*?)?\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|")


def _cann_table(metadata: str) -> dict[str, dict[str, str]]:
    """Extension version -> CANN, torch and branch, from the README's pairing table."""
    table: dict[str, dict[str, str]] = {}
    current = ""
    in_table = False
    for line in metadata.splitlines():
        if line.startswith("## "):
            in_table = line.strip() == "## Ascend Auxiliary Software"
            continue
        match = _CANN_ROW.match(line) if in_table else None
        if match is None or match.group(2) in ("Supported PyTorch Version", "") or "---" in line:
            continue
        if match.group(1):
            current = match.group(1).removeprefix("CANN ").strip()
        table[match.group(3)] = {"cann": current, "torch": match.group(2), "branch": match.group(4)}
    return table


def _cann_pairing(version: str, metadata: str) -> dict[str, str | None]:
    row = _cann_table(metadata).get(version)
    if row is not None:
        return {"cann": row["cann"], "cann_source": "METADATA: Ascend Auxiliary Software table"}
    install = re.search(r"Install CANN ([0-9][0-9A-Za-z.]*[0-9A-Za-z])", metadata)
    if install is not None:
        return {"cann": install.group(1), "cann_source": f"METADATA: {install.group(0)!r}"}
    return {"cann": None, "cann_source": "the wheel does not name its CANN version"}


# The whole file -------------------------------------------------------------------------
def _torch_npu_release(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
    with zipfile.ZipFile(path) as wheel:
        version = path.name.split("-")[1]
        metadata = _metadata(wheel)
        sections = _kernel_sections(wheel)
        modules = _module_table(Sources(wheel), list(TORCH_NPU_MODULES))
    top = modules["torch_npu"]
    ops = _custom_op_exports(sections)
    top["names"] = sorted(set(top["names"]) | set(ops))
    top["signatures"] = dict(sorted({**ops, **top["signatures"]}.items()))
    release = {
        "wheel": _wheel_record(path),
        "requires_torch": _requires(metadata, "torch"),
        **_cann_pairing(version, metadata),
        "modules": modules,
        "kernels": _kernels(sections),
    }
    return release, _cann_table(metadata)


def _python_release(path: Path, modules: list[str], project: str) -> dict[str, Any]:
    with zipfile.ZipFile(path) as wheel:
        metadata = _metadata(wheel)
        sources = Sources(wheel)
        if "torch.backends" in modules:
            backends = sources.submodules("torch.backends")
            modules += [f"torch.backends.{m}" for m in backends if not m.startswith("_")]
        release: dict[str, Any] = {"wheel": _wheel_record(path)}
        if project != "torch":
            release["requires_torch"] = _requires(metadata, "torch")
        else:
            release["backend_ops"] = _backend_ops(wheel)
        release["modules"] = _module_table(sources, modules)
    return release


def build(cache: Path) -> dict[str, Any]:
    """The data file's content from the wheels in `cache` (downloaded where missing)."""
    torch_npu: dict[str, Any] = {}
    cann_table: dict[str, dict[str, str]] = {}
    for version in TORCH_NPU_RELEASES:
        release, table = _torch_npu_release(fetch_wheel(cache, "torch-npu", version))
        torch_npu[version] = release
        cann_table.update(table)
    return {
        "format": 1,
        "generated_by": "python -m migrator.data.generate",
        "platform": f"{PLATFORMS[0]}, Python {PYTHON_VERSION}",
        "torch_npu": torch_npu,
        "cann_table": dict(sorted(cann_table.items())),
        "mx_driving": {
            version: _python_release(
                fetch_wheel(cache, "mx-driving", version), list(MX_DRIVING_MODULES), "mx-driving"
            )
            for version in MX_DRIVING_RELEASES
        },
        "torch": {
            version: _python_release(
                fetch_wheel(cache, "torch", version), list(TORCH_MODULES), "torch"
            )
            for version in TORCH_RELEASES
        },
    }


def render(data: dict[str, Any]) -> str:
    # One list item per line would triple the file; sorted keys, compact lists.
    return json.dumps(data, indent=1, sort_keys=True, separators=(",", ": ")) + "\n"


def _default_cache() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("npu-migrator") / "wheels"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m migrator.data.generate", description=__doc__)
    parser.add_argument("--wheels", type=Path, default=None, help="wheel cache directory")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    cache = args.wheels or _default_cache()
    try:
        text = render(build(cache))
    except GenerateError as error:
        print(f"generate: {error}", file=sys.stderr)
        return 2
    if args.check:
        current = DATA_FILE.read_text(encoding="utf-8") if DATA_FILE.exists() else ""
        if current != text:
            print(f"{DATA_FILE} is stale: run python -m migrator.data.generate", file=sys.stderr)
            return 1
        print(f"{DATA_FILE.name} matches the wheels in {cache}")
        return 0
    DATA_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {DATA_FILE} ({len(text.encode()) // 1024} KiB) from {cache}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
