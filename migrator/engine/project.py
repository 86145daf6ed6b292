"""Computing the project view (`migrator.core.project`) from the walked files.

Every fact is read from file text: shell commands through the shell lexer
(`migrator.formats.shell`), requirement lines through the requirements reader, Python
imports through the stdlib `ast`, configs through `json_spans`, `tomllib` and ruamel.yaml.
Nothing of the project is imported or run. A file that cannot be read or parsed gives no
facts (the per-file passes report it).
"""

from __future__ import annotations

import ast
import os
import posixpath
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrator.core.project import (
    DEVICE_KEY,
    ConfigFp16,
    DeviceSetting,
    Entry,
    Fp16Scaler,
    Import,
    Pin,
    ProjectView,
)
from migrator.data.release import TargetRelease, resolve
from migrator.engine.config import toml
from migrator.formats.sources import SourceError, decode_python, decode_text, split_lines
from migrator.formats.textlines import style_for

if TYPE_CHECKING:
    from migrator.formats import shell

# The shell lexer, the requirements reader, the JSON span reader and the GradScaler finder
# are imported where a file needs them: a project without such files (and every run's
# start-up) does without them.

# Files bigger than this are data, not launch scripts or configs.
MAX_BYTES = 1 << 20
MM_PACKAGES = ("mmcv", "mmdet", "mmdet3d")
# mmcv's pin says whether `mmcv.device.npu` (new in mmcv 1.7) can be there.
PINNED = frozenset({"torch", "torchvision", "torchaudio", "torch-npu", "mmcv", "mmcv-full"})
# mmcv's NPU module: a project importing it already runs its wrappers on the NPU.
MMCV_NPU = "mmcv.device.npu"
DEVICE_KEYS = DEVICE_KEY
CUDA_DEVICE = re.compile(r"^cuda(?::\d+)?$")

# A line that may import one of them; the ast then says whether it really does.
_MM_IMPORT = re.compile(rb"(?m)^[ \t]*(?:import|from)[ \t][^\n]*\bmm(?:cv|det)")
# What `_npu_grad_scalers` needs.
_NPU_NAME = re.compile(rb"\bnpu\b|torch_npu")
# Words without which a text holds no launch command: most scripts are not parsed.
_LAUNCH_WORDS = re.compile(r"python|torchrun|accelerate|deepspeed")
# `shell.SCRIPT_PATTERNS` as suffixes, written out so that naming a file a script does not
# import the lexer (tests/test_project_view.py holds them equal).
SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".sbatch", ".slurm")
_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)?)?$")
# Commands that run the rest of their words as another command.
_WRAPPERS = frozenset({"srun", "mpirun", "mpiexec", "nohup", "time", "env", "exec", "nice"})
# Modules that launch a script the way torchrun does.
_LAUNCH_MODULES = frozenset({"torch.distributed.run", "torch.distributed.launch"})
# Python options that take a value as the next word.
_PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "--check-hash-based-pycs"})
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<info>[\w+-]*)")
_SHELL_INFOS = frozenset({"sh", "bash", "shell", "console", "zsh", "shell-session"})
_MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_README = re.compile(r"^readme(?:\.md|\.markdown)?$", re.IGNORECASE)
_SCRIPT_REF = re.compile(r"^\s*[\w.-]+\s*=\s*(?P<module>[\w.]+)(?::[\w.]+)?")
# The folder of the running script, as shell scripts spell it (quotes already removed):
# `$(dirname $0)`, `$(dirname ${BASH_SOURCE[0]})`, `${BASH_SOURCE%/*}`, `$(cd $(dirname $0)
# && pwd)`, `$(realpath $(dirname $0))`, `$(dirname $(readlink -f $0))`.
_SELF = r"(?:\$0|\$\{0\}|\$BASH_SOURCE|\$\{BASH_SOURCE(?:\[0\])?\})"
_SELF_REAL = rf"(?:{_SELF}|\$\((?:realpath|readlink -f) {_SELF}\))"
_DIR = rf"(?:\$\(dirname {_SELF_REAL}\)|\$\{{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}})"
_SCRIPT_DIR = re.compile(
    rf"^(?:{_DIR}|\$\(cd {_DIR} *(?:&&|;) *pwd(?: -P)?\)|\$\((?:realpath|readlink -f) {_DIR}\))"
    r"(?=/|$)"
)
_VARIABLE = re.compile(r"^\$(?:\{(?P<braced>\w+)\}|(?P<plain>\w+))(?=/|$)")
# Commands whose arguments are assignments (`export ROOT=...`).
_DECLARE = frozenset({"export", "local", "readonly", "declare", "typeset"})
# The word after `-m` that is one variable: `$MODULE`, `"${MODULE}"`.
_VARIABLE_WORD = re.compile(
    r"""^(?P<quote>"?)\$(?:\{(?P<braced>\w+)\}|(?P<plain>\w+))(?P=quote)$"""
)
_LAUNCHERS = frozenset({"torchrun", "accelerate", "deepspeed"})
_MODULE_NAME = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def choose_release(
    view: ProjectView, explicit: str | None, origin: str = "--torch-npu"
) -> TargetRelease:
    """The torch-npu release of the run: `explicit`, else from the project's pins (the
    first torch-npu and the first torch requirement, by file and line). Raises
    UnknownRelease for an explicit release the data does not describe."""
    npu = view.pins_of("torch-npu")
    torch = view.pins_of("torch")
    chosen = resolve(
        explicit,
        explicit_origin=origin,
        project_torch_npu=f"{npu[0].name}{npu[0].specifier}" if npu else None,
        project_torch=f"{torch[0].name}{torch[0].specifier}" if torch else None,
    )
    # Say where the pin that decided is written.
    for prefix, pins in (
        ("the project's torch-npu pin", npu),
        ("the newest torch-npu for the project's torch pin", torch),
    ):
        if chosen.reason.startswith(prefix):
            where = f"{pins[0].path}:{pins[0].line}"
            return TargetRelease(chosen.version, f"{chosen.reason}, in {where}")
    return chosen


def build(root: Path, files: Sequence[str]) -> ProjectView:
    """The view of the project at `root`, from the walked files (project-relative)."""
    texts = _Texts(root)
    finder = _Finder(files)
    entries: list[Entry] = []
    imports: list[Import] = []
    pins: list[Pin] = []
    devices: list[DeviceSetting] = []
    scalers: list[Fp16Scaler] = []
    configs: dict[str, _Config] = {}
    npu_scalers: list[Fp16Scaler] = []
    for rel in files:
        name = posixpath.basename(rel)
        if rel.endswith(".py"):
            imports += _mm_imports(rel, texts.raw(rel))
            npu_scalers += _npu_grad_scalers(rel, texts.raw(rel))
            config = _mm_config(rel, texts.raw(rel))
            if config is not None:
                configs[rel] = config
        if name.endswith((".md", ".rst", ".txt", ".sh")) or name == "Dockerfile":
            pins += _pip_install_pins(rel, texts.raw(rel))
        if name == "pyproject.toml":
            text = texts.text(rel)
            entries += _pyproject_entries(rel, text, finder)
            pins += _pyproject_pins(rel, text)
        elif name == "setup.py":
            entries += _setup_py_entries(rel, texts.text(rel), finder)
        elif name == "setup.cfg":
            entries += _setup_cfg_entries(rel, texts.text(rel), finder)
        if name in _MAKEFILES or name.endswith(".mk"):
            entries += _makefile_entries(rel, texts.text(rel), finder)
        elif _README.match(name):
            entries += _readme_entries(rel, texts.text(rel), finder)
        elif _is_shell(rel, texts):
            entries += _commands(rel, texts.text(rel), 0, finder)
            scalers += _fp16_flags(rel, texts.text(rel))
        if style_for(rel) == "requirements":
            pins += _requirement_pins(rel, texts.text(rel))
        if name.endswith((".yaml", ".yml", ".json", ".toml")):
            devices += _device_settings(rel, texts.text(rel))
        if name.endswith((".yaml", ".yml", ".json")):
            scalers += _fp16_configs(rel, texts.text(rel))
        texts.release()
    return ProjectView(
        entries=tuple(sorted(_unique(entries), key=lambda e: (e.source, e.line, e.path))),
        imports=tuple(sorted(imports, key=lambda i: (i.path, i.line))),
        pins=tuple(sorted(pins, key=lambda p: (p.path, p.line))),
        device_settings=tuple(sorted(devices, key=lambda d: (d.path, d.line))),
        fp16_scalers=tuple(sorted(scalers, key=lambda f: (f.path, f.line))),
        config_fp16=_config_fp16(configs),
        npu_grad_scalers=tuple(npu_scalers),
    )


class _Texts:
    """File contents, read at most once while they are kept (`release`); unreadable or
    oversized files read as empty."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._raw: dict[str, bytes] = {}

    def release(self) -> None:
        """Forget the contents read so far: `build` reads each file in one step, and
        keeping every file's bytes to the end held all of torch's 47 MB of source."""
        self._raw.clear()

    def head(self, rel: str, size: int) -> bytes:
        """The first `size` bytes (of the contents `raw` gives): torch's tree holds 123
        files with no extension, test programs of 132 MB, which a shebang check read whole."""
        if rel in self._raw:
            return self._raw[rel][:size]
        try:
            with open(self.root / rel, "rb") as stream:
                data = stream.read(size)
                if stream.seek(0, os.SEEK_END) > MAX_BYTES:
                    return b""
        except OSError:
            return b""
        return data

    def raw(self, rel: str) -> bytes:
        if rel not in self._raw:
            try:
                with open(self.root / rel, "rb") as stream:
                    data = stream.read(MAX_BYTES + 1)
            except OSError:
                data = b""
            if len(data) > MAX_BYTES:
                data = b""
            self._raw[rel] = data
        return self._raw[rel]

    def text(self, rel: str) -> str:
        try:
            return decode_text(self.raw(rel)).text
        except SourceError:
            return ""


def _is_shell(rel: str, texts: _Texts) -> bool:
    """A shell or Slurm script by name, or an extension-less file with a shell shebang."""
    name = posixpath.basename(rel)
    if name.endswith(SHELL_SUFFIXES):
        return True
    if "." in name or not texts.head(rel, 2).startswith(b"#!"):
        return False
    return style_for(rel, texts.text(rel)) == "shell"


def _unique(entries: Iterable[Entry]) -> Iterator[Entry]:
    seen: set[tuple[str, str, int]] = set()
    for entry in entries:
        key = (entry.path, entry.source, entry.line)
        if key not in seen:
            seen.add(key)
            yield entry


class _Finder:
    """Project files named by a command: a path, or a dotted module."""

    def __init__(self, files: Sequence[str]) -> None:
        self.files = frozenset(files)
        self.python = [rel for rel in files if rel.endswith(".py")]

    def script(self, word: str, source: str, folders: dict[str, str] | None = None) -> str | None:
        """The file a script argument names: in the script's own folder when the word
        starts with it (`$(dirname "$0")/train.py`, `$SCRIPT_DIR/train.py` with `folders`
        the variables known to hold a project folder), relative to the project root, then to
        the command's own folder, then (for `$ROOT/x/train.py`) the one file ending so."""
        path = word.removeprefix("./")
        folder = script_folder(path, source, folders or {})
        if folder is not None:
            found = posixpath.normpath(posixpath.join(folder[0], folder[1]))
            return found if found in self.files else None
        if "$" in path or "`" in path:
            path = re.sub(r"^.*[}$`)][^/]*/", "", path).lstrip("/")
            if not path or "$" in path:
                return None
            return self._ending(path)
        candidates = [
            posixpath.normpath(path),
            posixpath.normpath(posixpath.join(posixpath.dirname(source), path)),
        ]
        return next((c for c in candidates if c in self.files), None)

    def module(self, dotted: str) -> str | None:
        base = dotted.replace(".", "/")
        for suffix in (f"{base}.py", f"{base}/__main__.py", f"{base}/__init__.py"):
            if suffix in self.files:
                return suffix
            found = self._ending(suffix)
            if found is not None:
                return found
        return None

    def _ending(self, suffix: str) -> str | None:
        found = [rel for rel in self.python if rel == suffix or rel.endswith("/" + suffix)]
        return found[0] if len(found) == 1 else None


def script_folder(word: str, source: str, folders: dict[str, str]) -> tuple[str, str] | None:
    """(project folder, rest of the path) when `word` starts with the running script's
    folder or a variable holding a known folder; else None. `source` is the script."""
    here = posixpath.dirname(source)
    found = _SCRIPT_DIR.match(word)
    if found is not None:
        return here, word[found.end() :].lstrip("/")
    variable = _VARIABLE.match(word)
    if variable is not None:
        name = variable.group("braced") or variable.group("plain")
        if name in folders:
            return folders[name], word[variable.end() :].lstrip("/")
    return None


def _assignments(command: shell.Command) -> Iterator[tuple[str, str]]:
    """(name, value without quotes) of the assignments a command makes."""
    from migrator.formats import shell

    prefix, name, args = command.parts()
    words = list(prefix)
    if name is not None and shell.unquote(name.text) in _DECLARE:
        words += [word for word in args if shell.ASSIGNMENT.match(word.text)]
    elif name is not None:
        # `ROOT=... python x.py`: the assignment is for that command only.
        return
    for word in words:
        matched = shell.ASSIGNMENT.match(word.text)
        if matched is not None and "[" not in word.text[: matched.end()]:
            yield matched.group("name"), shell.unquote(word.text[matched.end() :])


def _commands(source: str, text: str, first_line: int, finder: _Finder) -> list[Entry]:
    """Entries named by the shell commands of `text` (its line 1 is `first_line` + 1)."""
    found: list[Entry] = []
    if not _LAUNCH_WORDS.search(text):
        return found
    from migrator.formats import shell

    script = shell.parse(text)
    starts = shell.line_starts(text)
    # Variables holding a project folder (`SCRIPT_DIR=$(dirname "$0")`), and the values
    # each variable is given (for `-m $MODULE`).
    folders: dict[str, str] = {}
    values: dict[str, list[tuple[str, int]]] = {}
    for command in script.commands:
        for variable, value in _assignments(command):
            line = shell.position(starts, command.words[0].start)[0] + first_line
            values.setdefault(variable, []).append((value, line))
            folder = script_folder(value, source, folders)
            if folder is not None:
                folders[variable] = posixpath.normpath(posixpath.join(*folder))
            else:
                folders.pop(variable, None)
        _, name, args = command.parts()
        if name is None:
            continue
        words = [shell.unquote(word.text) for word in (name, *args)]
        launched = _launched(words)
        if launched is None:
            continue
        how, kind, target = launched
        path = finder.module(target) if kind == "module" else finder.script(target, source, folders)
        if path is not None:
            line = shell.position(starts, name.start)[0] + first_line
            found.append(Entry(path, source, line, how))
    found += _module_variables(source, script, values, finder)
    return found


def _launches(words: Sequence[str]) -> bool:
    """Whether a `-m` after `words` (a command's name and arguments, unquoted) is a
    launcher's: they start with python, torchrun, ... (or a wrapper of them), or there are
    none (a line of an array built for a launcher: `CMD+=(` then `-m "$X"`)."""
    from migrator.formats import shell

    for word in words:
        name = posixpath.basename(word)
        if _PYTHON.match(name) or name in _LAUNCHERS:
            return True
        if name not in _WRAPPERS and not shell.ASSIGNMENT.match(name):
            return False
    return not words


def _dash_m_variables(command: shell.Command) -> Iterator[str]:
    """The variables a launcher's `-m` takes in `command` (`-m "$MODULE"`)."""
    from migrator.formats import shell

    _, name, args = command.parts()
    if name is None:
        return
    words = [name, *args]
    plain = [shell.unquote(word.text) for word in words]
    for index in range(len(words) - 1):
        if plain[index] != "-m" or not _launches(plain[:index]):
            continue
        variable = _VARIABLE_WORD.match(words[index + 1].text)
        if variable is not None:
            yield variable.group("braced") or variable.group("plain")


def _module_variables(
    source: str, script: shell.Script, values: dict[str, list[tuple[str, int]]], finder: _Finder
) -> list[Entry]:
    """`-m "$MODULE"` (in a command, or in an array a launcher is built from): each
    module of the project the script assigns to that variable is launched."""
    found: list[Entry] = []
    names = (name for command in script.commands for name in _dash_m_variables(command))
    for name in dict.fromkeys(names):
        for value, line in values.get(name, ()):
            if not _MODULE_NAME.match(value):
                continue
            path = finder.module(value)
            if path is not None:
                found.append(Entry(path, source, line, f"-m ${name} ({name}={value})"))
    return found


def _launched(words: Sequence[str]) -> tuple[str, str, str] | None:
    """(launcher, "script" or "module", what it runs) for a launch command, else None."""
    index = 0
    while index < len(words):
        name = posixpath.basename(words[index])
        rest = words[index + 1 :]
        if _PYTHON.match(name):
            return _python(name, rest)
        if name == "torchrun":
            return _after_options("torchrun", rest, ("-m", "--module"))
        if name == "accelerate" and rest[:1] == ["launch"]:
            return _after_options("accelerate launch", rest[1:], ("-m", "--module"))
        if name == "deepspeed":
            return _after_options("deepspeed", rest, ("--module",))
        if name not in _WRAPPERS and index == 0:
            return None
        index += 1
    return None


def _python(name: str, args: Sequence[str]) -> tuple[str, str, str] | None:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "-m" and index + 1 < len(args):
            module = args[index + 1]
            if module in _LAUNCH_MODULES:
                return _after_options(f"{name} -m {module}", args[index + 2 :], ("-m",))
            return f"{name} -m", "module", module
        if arg == "-c":
            return None
        if arg in _PYTHON_VALUE_OPTIONS:
            index += 2
            continue
        if arg.startswith("-"):
            index += 1
            continue
        return (name, "script", arg) if arg.endswith(".py") else None
    return None


def _after_options(
    how: str, args: Sequence[str], module_flags: tuple[str, ...]
) -> tuple[str, str, str] | None:
    """The first script argument after a launcher's options (their values are skipped by
    not looking like a script), or the module after a module flag."""
    for index, arg in enumerate(args):
        if arg in module_flags and index + 1 < len(args):
            return how, "module", args[index + 1]
        if not arg.startswith("-") and arg.endswith(".py"):
            return how, "script", arg
    return None


def _readme_entries(source: str, text: str, finder: _Finder) -> list[Entry]:
    """Commands in the README's shell code blocks (a `$ ` prompt is dropped)."""
    found: list[Entry] = []
    lines = split_lines(text)
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence = opening.group("fence")
        body: list[str] = []
        start = index + 1
        index += 1
        while index < len(lines) and not lines[index].lstrip().startswith(fence):
            body.append(lines[index])
            index += 1
        index += 1
        if opening.group("info").lower() in _SHELL_INFOS:
            block = "".join(re.sub(r"^(\s*)\$ ", r"\1", line) for line in body)
            found += _commands(source, block, start, finder)
    return found


def _makefile_entries(source: str, text: str, finder: _Finder) -> list[Entry]:
    """Recipe lines (tab-indented), without make's `@` / `-` prefixes."""
    found: list[Entry] = []
    for number, line in enumerate(split_lines(text)):
        if line.startswith("\t"):
            command = line[1:].lstrip("@-+ ")
            found += _commands(source, command, number, finder)
    return found


def _line_of(text: str, needle: str) -> int:
    index = text.find(needle)
    return 1 if index < 0 else text.count("\n", 0, index) + 1


def _toml(text: str) -> dict[str, Any]:
    tomllib = toml()
    try:
        data: dict[str, Any] = tomllib.loads(text)
        return data
    except tomllib.TOMLDecodeError:
        return {}


def _pyproject_entries(source: str, text: str, finder: _Finder) -> list[Entry]:
    data = _toml(text)
    project = data.get("project", {})
    poetry = data.get("tool", {}).get("poetry", {})
    found: list[Entry] = []
    for table, scripts in (
        ("[project.scripts]", project.get("scripts", {})),
        ("[project.gui-scripts]", project.get("gui-scripts", {})),
        ("[tool.poetry.scripts]", poetry.get("scripts", {})),
    ):
        if not isinstance(scripts, dict):
            continue
        for name, value in scripts.items():
            if isinstance(value, str):
                path = finder.module(value.split(":", 1)[0].strip())
                if path is not None:
                    line = _line_of(text, value)
                    found.append(Entry(path, source, line, f"{table} {name}"))
    return found


def _console_scripts(values: Iterable[str], source: str, text: str, finder: _Finder) -> list[Entry]:
    found: list[Entry] = []
    for value in values:
        match = _SCRIPT_REF.match(value)
        if match is None:
            continue
        path = finder.module(match.group("module"))
        if path is not None:
            name = value.split("=", 1)[0].strip()
            found.append(
                Entry(path, source, _line_of(text, value.strip()), f"console_scripts {name}")
            )
    return found


def _setup_py_entries(source: str, text: str, finder: _Finder) -> list[Entry]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    values: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "console_scripts":
                elements = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
                values += [
                    item.value
                    for item in elements
                    if isinstance(item, ast.Constant) and isinstance(item.value, str)
                ]
    return _console_scripts(values, source, text, finder)


def _setup_cfg_entries(source: str, text: str, finder: _Finder) -> list[Entry]:
    import configparser  # setup.cfg only: most trees have none

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    raw = parser.get("options.entry_points", "console_scripts", fallback="")
    return _console_scripts(raw.splitlines(), source, text, finder)


def _mm_imports(rel: str, data: bytes) -> list[Import]:
    """The first import of each of mmcv / mmdet / mmdet3d in one Python file."""
    if (b"mmcv" not in data and b"mmdet" not in data) or not _MM_IMPORT.search(data):
        return []
    try:
        tree = ast.parse(decode_python(data).text)
    except (SourceError, SyntaxError, ValueError, RecursionError):
        return []
    first: dict[str, int] = {}
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "mmcv.device":
            names += [f"mmcv.device.{alias.name}" for alias in node.names]
        for name in names:
            top = name.split(".", 1)[0]
            if top in MM_PACKAGES and node.lineno < first.get(top, sys.maxsize):
                first[top] = node.lineno
            if (name == MMCV_NPU or name.startswith(MMCV_NPU + ".")) and node.lineno < first.get(
                MMCV_NPU, sys.maxsize
            ):
                first[MMCV_NPU] = node.lineno
    packages = (*MM_PACKAGES, MMCV_NPU)
    return [Import(package, rel, first[package]) for package in packages if package in first]


# `pip install ... mmcv-full==1.4.0 ...` in install docs, READMEs and scripts: where mmcv
# projects pin mmcv (mmcv-full has no wheel index on PyPI for most builds).
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b(?P<args>[^\n#]*)")
_MMCV_REQUIREMENT = re.compile(r"^[\"']?(?P<req>mmcv(?:[-_]full)?\s*(?:[=<>~!]=?|===)[^\s\"']+)")


def _pip_install_pins(rel: str, data: bytes) -> list[Pin]:
    """mmcv / mmcv-full requirements on `pip install` command lines of a text file."""
    if b"mmcv" not in data or b"install" not in data:
        return []
    try:
        text = decode_text(data).text
    except SourceError:
        return []
    found: list[Pin] = []
    for number, line in enumerate(split_lines(text), 1):
        # A commented-out command (`#  pip install ...`) pins nothing.
        for command in _PIP_INSTALL.finditer(line.split("#", 1)[0]):
            for word in command.group("args").split():
                match = _MMCV_REQUIREMENT.match(word)
                if match is not None:
                    pin = _pin(match.group("req"), rel, number)
                    if pin is not None:
                        found.append(pin)
    return found


def _pin(text: str, path: str, line: int) -> Pin | None:
    # Imported here: a project without pins (most runs' start-up) never needs the parser
    # (nor packaging.utils, which imports the platform tags).
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    name = canonicalize_name(requirement.name)
    if name not in PINNED:
        return None
    marker = "" if requirement.marker is None else str(requirement.marker)
    return Pin(name, str(requirement.specifier), marker, path, line)


def _requirement_pins(rel: str, text: str) -> list[Pin]:
    from migrator.formats import requirements

    found: list[Pin] = []
    for entry in requirements.parse(split_lines(text)):
        if entry.name is None or entry.name not in PINNED:
            continue
        # The requirement with its marker, without pip's options (`--hash=...`).
        pin = _pin(entry.requirement, rel, entry.first + 1)
        if pin is not None:
            found.append(pin)
    return found


def _pyproject_pins(rel: str, text: str) -> list[Pin]:
    project = _toml(text).get("project", {})
    lists = [project.get("dependencies", [])]
    optional = project.get("optional-dependencies", {})
    if isinstance(optional, dict):
        lists += list(optional.values())
    found: list[Pin] = []
    for values in lists:
        for value in values if isinstance(values, list) else []:
            if isinstance(value, str):
                pin = _pin(value, rel, _line_of(text, value))
                if pin is not None:
                    found.append(pin)
    return found


def _device_settings(rel: str, text: str) -> list[DeviceSetting]:
    if "cuda" not in text or ("device" not in text and "map_location" not in text):
        return []
    if rel.endswith(".json"):
        return _json_devices(rel, text)
    if rel.endswith(".toml"):
        return _toml_devices(rel, text)
    return _yaml_devices(rel, text)


def _is_device(key: object, value: object) -> bool:
    return (
        isinstance(key, str)
        and DEVICE_KEYS.match(key) is not None
        and isinstance(value, str)
        and CUDA_DEVICE.match(value.strip()) is not None
    )


def _json_devices(rel: str, text: str) -> list[DeviceSetting]:
    from migrator.formats.json_spans import JSONSpanError, line_col, spans

    try:
        found = spans(text)
    except (JSONSpanError, ValueError, RecursionError):
        return []
    return [
        DeviceSetting(rel, key, line_col(text, span.start)[0], span.value)
        for key, span in found.items()
        if key and _is_device(key[-1], span.value)
    ]


def _walk(
    value: object, key: tuple[str | int, ...]
) -> Iterator[tuple[tuple[str | int, ...], object]]:
    yield key, value
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _walk(item, (*key, str(name)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*key, index))


def _toml_devices(rel: str, text: str) -> list[DeviceSetting]:
    found: list[DeviceSetting] = []
    lines = split_lines(text)
    for key, value in _walk(_toml(text), ()):
        if key and _is_device(key[-1], value):
            assert isinstance(value, str)
            pattern = re.compile(rf"^\s*[\"']?{re.escape(str(key[-1]))}[\"']?\s*=")
            line = next((n for n, raw in enumerate(lines, 1) if pattern.match(raw)), 1)
            found.append(DeviceSetting(rel, key, line, value))
    return found


def _yaml_devices(rel: str, text: str) -> list[DeviceSetting]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    found: list[DeviceSetting] = []
    try:
        documents = list(YAML(typ="rt").load_all(text))
    except (YAMLError, ValueError, RecursionError):
        return []
    for number, document in enumerate(documents):
        prefix: tuple[str | int, ...] = (number,) if len(documents) > 1 else ()
        found += _yaml_walk(rel, document, prefix)
    return found


def _yaml_walk(rel: str, node: Any, key: tuple[str | int, ...]) -> list[DeviceSetting]:
    found: list[DeviceSetting] = []
    if isinstance(node, dict):
        for name, value in node.items():
            if _is_device(name, value):
                line = node.lc.key(name)[0] + 1 if hasattr(node, "lc") else 1
                found.append(DeviceSetting(rel, (*key, str(name)), line, str(value)))
            else:
                found += _yaml_walk(rel, value, (*key, str(name)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _yaml_walk(rel, value, (*key, index))
    return found


# fp16 with a library's GradScaler (torch_npu's on an NPU): accelerate's option, the
# transformers Trainer's flag. `--fp16 False` / `--fp16=0` turn it off.
_MIXED_PRECISION = ("--mixed_precision", "--mixed-precision")
_OFF = frozenset({"false", "0", "no"})


def _fp16_flags(rel: str, text: str) -> list[Fp16Scaler]:
    """`--mixed_precision fp16` (accelerate) and `--fp16` (the Trainer) in shell commands."""
    if "fp16" not in text:
        return []
    from migrator.formats import shell

    found: list[Fp16Scaler] = []
    starts = shell.line_starts(text)
    for command in shell.parse(text).commands:
        _, name, args = command.parts()
        if name is None:
            continue
        words = [shell.unquote(word.text) for word in args]
        for index, word in enumerate(words):
            flag, _, value = word.partition("=")
            following = words[index + 1] if index + 1 < len(words) else ""
            if flag in _MIXED_PRECISION:
                chosen = value if "=" in word else following
                if chosen == "fp16":
                    how = f"{flag} fp16"
                else:
                    continue
            elif flag == "--fp16":
                chosen = value if "=" in word else following
                if chosen.lower() in _OFF:
                    continue
                how = "--fp16"
            else:
                continue
            line = shell.position(starts, args[index].start)[0]
            found.append(Fp16Scaler(rel, line, how))
    return found


def _fp16_configs(rel: str, text: str) -> list[Fp16Scaler]:
    """`mixed_precision: fp16` in an accelerate config (YAML or JSON)."""
    if "mixed_precision" not in text or "fp16" not in text:
        return []
    if rel.endswith(".json"):
        from migrator.formats.json_spans import JSONSpanError, line_col, spans

        try:
            found = spans(text)
        except (JSONSpanError, ValueError, RecursionError):
            return []
        return [
            Fp16Scaler(rel, line_col(text, span.start)[0], "mixed_precision: fp16")
            for key, span in found.items()
            if key and key[-1] == "mixed_precision" and span.value == "fp16"
        ]
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        documents = list(YAML(typ="rt").load_all(text))
    except (YAMLError, ValueError, RecursionError):
        return []
    scalers: list[Fp16Scaler] = []
    for document in documents:
        if isinstance(document, dict) and document.get("mixed_precision") == "fp16":
            line = document.lc.key("mixed_precision")[0] + 1 if hasattr(document, "lc") else 1
            scalers.append(Fp16Scaler(rel, line, "mixed_precision: fp16"))
    return scalers


# mmcv configs -------------------------------------------------------------------------
# Module-level settings by which mmcv / mmdet / mmengine train fp16 with their own loss
# scaler (torch_npu's GradScaler on an NPU).
_FP16_HOOKS = frozenset({"Fp16OptimizerHook", "GradientCumulativeFp16OptimizerHook"})
_AMP_WRAPPERS = frozenset({"AmpOptimWrapper"})


@dataclass(frozen=True)
class _Config:
    """What one mmcv-style config file sets itself: its fp16 setting and its `_base_`s."""

    fp16: tuple[int, str] | None
    bases: tuple[str, ...]


# A statement that may assign one of the names `_mm_config` reads (at the start of a line,
# or after a `;`, parentheses allowed: `(fp16) = ...` binds the name too).
_CONFIG_NAMES = (b"_base_", b"fp16", b"optimizer_config", b"optim_wrapper")
_CONFIG_NAME = re.compile(
    rb"(?m)(?:^|;)[ \t(]*(?:_base_|fp16|optimizer_config|optim_wrapper)[ \t)]*=(?!=)"
)


def _assigns_config_name(data: bytes) -> bool:
    """Whether `_CONFIG_NAME` matches in `data`, tried only on the lines that hold one of
    the names (every match lies within one line): `re` tries a pattern led by `^` or `;`
    at every position, and most files that say "fp16" are not configs."""
    for name in _CONFIG_NAMES:
        at = data.find(name)
        while at != -1:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            end = len(data) if end == -1 else end
            if _CONFIG_NAME.search(data, start, end) is not None:
                return True
            at = data.find(name, end)
    return False


def _says_fp16(data: bytes) -> bool:
    """Whether `data` says fp16 in any case: each "p16" or "P16" is checked for an "f" or
    "F" before it (copying the file in lower case cost 0.07 CPU s over torch's source,
    where 300 files hold "fp16")."""
    for middle in (b"p16", b"P16"):
        at = data.find(middle, 1)
        while at != -1:
            if data[at - 1] in b"fF":
                return True
            at = data.find(middle, at + 1)
    return False


def _mm_config(rel: str, data: bytes) -> _Config | None:
    """The fp16 setting and `_base_` files of a Python file that may be an mmcv config."""
    if b"_base_" not in data and b"Amp" not in data and not _says_fp16(data):
        return None
    if not _assigns_config_name(data):
        # None of the module-level names read below is assigned on any line.
        return None
    try:
        tree = ast.parse(decode_python(data).text)
    except (SourceError, SyntaxError, ValueError, RecursionError):
        return None
    fp16: tuple[int, str] | None = None
    bases: list[str] = []
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if not isinstance(target, ast.Name):
            continue
        value = statement.value
        if target.id == "_base_":
            items = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            for item in items:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    bases.append(
                        posixpath.normpath(posixpath.join(posixpath.dirname(rel), item.value))
                    )
            continue
        how = _fp16_setting(target.id, value)
        if how is not None and fp16 is None:
            fp16 = (statement.lineno, how)
    return _Config(fp16, tuple(bases))


def _fp16_setting(name: str, value: ast.expr) -> str | None:
    if name == "fp16":
        return None if isinstance(value, ast.Constant) and value.value is None else "fp16 = ..."
    if name not in ("optimizer_config", "optim_wrapper") or not isinstance(value, ast.Call):
        return None
    kinds = _FP16_HOOKS if name == "optimizer_config" else _AMP_WRAPPERS
    for keyword in value.keywords:
        chosen = keyword.value
        if (
            keyword.arg == "type"
            and isinstance(chosen, ast.Constant)
            and isinstance(chosen.value, str)
            and chosen.value in kinds
        ):
            return f"{name} = dict(type={chosen.value!r}, ...)"
    return None


def _config_fp16(configs: dict[str, _Config]) -> tuple[ConfigFp16, ...]:
    """Each config that sets fp16 itself or through the `_base_` files the run walks."""
    found: dict[str, ConfigFp16] = {}
    for path in sorted(configs):
        own = _inherited_fp16(path, configs, set())
        if own is not None:
            found[path] = ConfigFp16(path, *own)
    # A `_base_` of an fp16 config builds that config's optimizer too.
    for path, child in sorted(found.items()):
        line, how = child.line, child.how
        if child.source != path:
            line, how = 1, f"{how} from {child.source}"
        for base in _all_bases(path, configs, set()):
            if base not in found:
                found[base] = ConfigFp16(base, path, line, how, inherited=True)
    return tuple(found[path] for path in sorted(found))


def _all_bases(path: str, configs: dict[str, _Config], seen: set[str]) -> Iterator[str]:
    config = configs.get(path)
    if config is None:
        return
    for base in config.bases:
        if base not in seen:
            seen.add(base)
            yield base
            yield from _all_bases(base, configs, seen)


def _inherited_fp16(
    path: str, configs: dict[str, _Config], seen: set[str]
) -> tuple[str, int, str] | None:
    config = configs.get(path)
    if config is None or path in seen:
        return None
    seen.add(path)
    if config.fp16 is not None:
        return (path, *config.fp16)
    for base in config.bases:
        setting = _inherited_fp16(base, configs, seen)
        if setting is not None:
            return setting
    return None


def _npu_grad_scalers(rel: str, data: bytes) -> list[Fp16Scaler]:
    """torch_npu's GradScaler named in one Python file (its first line). Every name of it
    spells `npu` as a word or `torch_npu` (`NPU_SCALERS`), in the import that binds it or
    in the name itself: a file without either is not parsed (torch's source has dozens
    that name torch's own; "npu" alone is in every "input")."""
    if b"GradScaler" not in data or _NPU_NAME.search(data) is None:
        return []
    try:
        tree = ast.parse(decode_python(data).text)
    except (SourceError, SyntaxError, ValueError, RecursionError):
        return []
    from migrator.analysis.grad_scalers import npu_scaler_line

    line = npu_scaler_line(tree)
    return [] if line is None else [Fp16Scaler(rel, line, "torch_npu's GradScaler")]
