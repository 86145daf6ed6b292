"""CUDA wheels and the torch pin in requirements and constraints files."""

from __future__ import annotations

import re
from typing import ClassVar

from migrator.contract.rule import Example, TextRule
from migrator.contract.unsupported import fill
from migrator.core.model import Finding, TextEdit
from migrator.formats.requirements import Entry, normalize, parse, release
from migrator.formats.sources import newline_of, split_lines

# torch's own CUDA dependencies: nothing imports them once torch is not a CUDA build.
_CUDA_LIBRARY = re.compile(r"^nvidia-[a-z0-9-]+-cu\d+$")
_TRITON = frozenset({"triton", "pytorch-triton"})
# Wheels the project's own code imports: removing them would break imports, so they are
# reported. Each with the code-level rule that reports its imports, where one does.
_CUDA_ONLY = (
    (re.compile(r"^flash-attn(-\d+)?$"), "NPU050"),
    (re.compile(r"^xformers$"), "NPU052"),
    (re.compile(r"^bitsandbytes$"), "NPU058"),
    (re.compile(r"^cupy-cuda\w*$"), "NPU054"),
    (re.compile(r"^(nvidia-ml-py3?|pynvml|py3nvml)$"), "NPU061"),
    (re.compile(r"^pycuda$"), ""),
    (re.compile(r"^(tensorrt(-[a-z0-9-]+)?|torch-tensorrt)$"), ""),
    (re.compile(r"^onnxruntime-gpu$"), ""),
    (re.compile(r"^nvidia-dali-cuda\d+$"), ""),
    (re.compile(r"^(mamba-ssm|causal-conv1d)$"), ""),
)
_INDEX_OPTIONS = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links"})
_CUDA_URL = re.compile(r"(?:/|%2B|\+)cu\d{2,3}(?=[/._-]|$)", re.IGNORECASE)
_TORCH = "torch"


class CudaRequirements(TextRule):
    """Drop torch's CUDA wheels from requirements files, pin the target's torch runtime
    next to torch, and report CUDA-only wheels and CUDA wheel indexes.

    What it does, in `requirements*.txt`, `requirements/*.txt` and `constraints*.txt`:

    - deletes `nvidia-*-cu12` / `-cu11` pins (cuBLAS, cuDNN, NCCL, ...) and `triton` /
      `pytorch-triton`: torch's CUDA build pulls these in, nothing else imports them, and a
      torch used with torch-npu is the CPU build. A deleted requirement takes its
      continuation lines and the indented comments right below it (pip-compile's `# via`
      block) with it;
    - after a pinned `torch==X` it inserts `torch-npu==X.*` (the target's
      `runtime_requirement`; torch-npu versions mirror torch's, `torch-npu 2.7.1.postN`
      needs `torch==2.7.1`), with the torch line's environment marker, unless the file
      already names torch-npu. It does so only for torch versions that have a torch-npu
      release (`Target.runtime_torch_versions`): `torch==2.7.0` has none, so it gets a
      warning naming the nearest release (2.7.1) instead of a pin pip cannot resolve;
      a torch newer than every known release gets the line flagged needs review;
    - reports an unpinned or ranged torch (pin it so the runtime can match), a torch
      pinned to a CUDA build (`+cu121`), a hash-checked torch line (the inserted line
      would need its own hashes), a torch-npu pin that does not match torch, CUDA-only
      wheels the code imports (`flash-attn`, `xformers`, `bitsandbytes`, `cupy-cuda12x`,
      `nvidia-ml-py`/`pynvml`, `pycuda`, TensorRT, `onnxruntime-gpu`, ...) and
      `--extra-index-url` / `--index-url` / `--find-links` (or a direct URL) that point at
      CUDA wheels (`.../whl/cu121`).

    Everything else stays byte for byte: comments, environment markers, hashes, `-r`/`-c`
    includes, line continuations, CRLF line endings.

    Why delete rather than comment out: the diff already shows each removed line and the
    report gives the reason; commented-out pins would stay in the file for good, and a
    commented requirements file reads as if the pins were still meant. CUDA-only wheels
    the code imports are reported, not removed, because their imports must be ported
    first.

    Why at all: on an Ascend host the `nvidia-*-cu12` wheels and `triton` are dead weight
    at best (x86_64) and uninstallable at worst (aarch64 has no such wheels for most
    pins), and without `torch-npu` pinned to torch's exact version the NPU runtime either
    is missing or refuses the installed torch.

    Example: `torch==2.7.1` followed by `nvidia-cublas-cu12==12.4.5.8` becomes
    `torch==2.7.1` followed by `torch-npu==2.7.1.*`.

    Safety: safe; an inserted runtime pin for a torch version newer than the known
    torch-npu releases is flagged needs review.
    """

    code = "NPU102"
    name = "cuda-requirements"
    summary = "Drop nvidia-*-cu12/triton pins, pin torch-npu beside torch, report CUDA-only wheels."
    # pip names ignore case and separators (`Torch`, `flash_attn`): no substring is certain
    # to occur, so the empty token lets every requirements file through.
    tokens = ("",)
    patterns: ClassVar[tuple[str, ...]] = (
        "requirements*.txt",
        "requirements/*.txt",
        "*/requirements/*.txt",
        "constraints*.txt",
    )
    examples = (
        Example(
            "numpy==1.26.4\ntorch==2.7.1\nnvidia-cublas-cu12==12.4.5.8\ntriton==3.2.0\n",
            "numpy==1.26.4\ntorch==2.7.1\ntorch-npu==2.7.1.*\n",
            "requirements.txt",
        ),
        Example(
            "numpy==1.26.4  # nvidia-smi says cu12\ntorch==2.7.1\ntorch-npu==2.7.1.*\n",
            None,
            "requirements.txt",
        ),
    )

    def check(self, text: str) -> list[Finding]:
        lines = split_lines(text)
        # starts[i]: the offset of line i (0-based); starts[len(lines)] is the end.
        self._starts = [0]
        for line in lines:
            self._starts.append(self._starts[-1] + len(line))
        self._found: list[Finding] = []
        entries = parse(lines)
        runtime = normalize(self.target.runtime_requirement)
        has_runtime = any(entry.name == runtime for entry in entries)
        torch_pins = {
            pin for e in entries if e.name == _TORCH and (pin := e.pinned_version) is not None
        }
        for index, entry in enumerate(entries):
            if entry.option in _INDEX_OPTIONS and _CUDA_URL.search(entry.value):
                self._warn(
                    entry,
                    f"{entry.option} {entry.value} serves CUDA builds of torch",
                    self._index_hint(),
                )
            if entry.name is None:
                continue
            if _CUDA_LIBRARY.match(entry.name) or entry.name in _TRITON:
                self._delete(entries, lines, index)
            elif entry.name == _TORCH:
                self._torch(entry, has_runtime, lines[entry.last], text)
            elif entry.name == runtime:
                self._check_runtime(entry, torch_pins)
            else:
                self._cuda_only(entry)
            if entry.url and _CUDA_URL.search(entry.url):
                self._warn(entry, f"{entry.name} comes from a CUDA wheel URL", self._index_hint())
        return self._found

    def _index_hint(self) -> str:
        return (
            "drop it on aarch64 hosts, where PyPI's torch is the CPU build "
            f"{self.target.runtime_requirement} needs, or use the CPU index .../whl/cpu on x86_64"
        )

    def _warn(self, entry: Entry, message: str, suggestion: str) -> None:
        self._found.append(self.warning(entry.first + 1, entry.column, message, suggestion))

    def _lines(self, first: int, last: int) -> TextEdit:
        """Deleting lines first..last (0-based, inclusive) with their line endings."""
        return TextEdit(self._starts[first], self._starts[last + 1], "")

    # Deleting torch's CUDA wheels -----------------------------------------------------
    def _delete(self, entries: list[Entry], lines: list[str], index: int) -> None:
        entry = entries[index]
        what = "Triton's CUDA compiler" if entry.name in _TRITON else "a CUDA library of torch"
        runtime = self.target.runtime_requirement
        message = f"removed {entry.requirement}: {what}, not used with {runtime}"
        edits = [self._lines(entry.first, entry.last)]
        # pip-compile writes the reasons for a pin as indented comments below it.
        for following in entries[index + 1 :]:
            if following.name is not None or following.option is not None:
                break
            raw = lines[following.first]
            if not raw.lstrip().startswith("#") or not raw[:1].isspace():
                break
            edits.append(self._lines(following.first, following.last))
        self._found.append(self.change(entry.first + 1, entry.column, message, *edits))

    # The torch pin and its runtime ----------------------------------------------------
    def _torch(self, entry: Entry, has_runtime: bool, last_line: str, text: str) -> None:
        """Insert the runtime line after `entry`, or report why not."""
        runtime = self.target.runtime_requirement
        version = entry.pinned_version
        if version is None:
            if not has_runtime:
                self._warn(
                    entry,
                    f"torch is not pinned ({entry.specifier or 'no version'}), so no "
                    f"{runtime} pin can match it",
                    f"pin torch==X to a version {runtime} is released for and add {runtime}==X.*",
                )
            return
        base, _, local = version.partition("+")
        if local.startswith(("cu", "rocm")):
            self._warn(
                entry,
                f"torch=={version} is a GPU build, not the CPU build {runtime} needs",
                f"pin torch=={base} and add {runtime}=={base}.*",
            )
            return
        if has_runtime:
            return
        if entry.hashed:
            self._warn(
                entry,
                f"hash-checked torch pin: {runtime}=={base}.* was not added",
                f"add {runtime}=={base}.* with its --hash lines",
            )
            return
        review = False
        known = self.target.runtime_torch_versions
        if known and base not in known:
            newest = max(known, key=_order)
            if _order(base) <= _order(newest):
                nearest = _nearest(base, known)
                self._warn(
                    entry,
                    f"no {runtime} release matches torch=={base}",
                    f"pin torch=={nearest}, {runtime}=={nearest}.* and a torchvision/torchaudio "
                    "that matches",
                )
                return
            review = True
        marker = f"; {entry.marker}" if entry.marker else ""
        new_line = f"{runtime}=={base}.*{marker}{_ending(last_line)}"
        message = f"added {runtime}=={base}.* after torch=={version}"
        if review:
            message += f" (torch {base} is newer than the {runtime} releases checked)"
        if not last_line.endswith(("\n", "\r")):
            new_line = newline_of(text) + new_line
        at = self._starts[entry.last + 1]
        insertion = TextEdit(at, at, new_line)
        self._found.append(
            self.change(entry.first + 1, entry.column, message, insertion, review=review or None)
        )

    def _check_runtime(self, entry: Entry, torch_pins: set[str]) -> None:
        runtime_version = entry.pinned_version or entry.specifier.lstrip("=~<>! ")
        runtime_release = release(runtime_version) if runtime_version else None
        for pin in sorted(torch_pins):
            torch_release = release(pin.partition("+")[0])
            if runtime_release and torch_release and runtime_release[:3] != torch_release[:3]:
                self._warn(
                    entry,
                    f"{entry.requirement} does not match torch=={pin}",
                    f"{self.target.runtime_requirement} versions mirror torch's: pin "
                    f"{self.target.runtime_requirement}=={pin.partition('+')[0]}.*",
                )

    def _cuda_only(self, entry: Entry) -> None:
        assert entry.name is not None
        for pattern, code in _CUDA_ONLY:
            if pattern.match(entry.name):
                where = f"; {code} reports its imports" if code else ""
                self._warn(
                    entry,
                    f"{entry.name} is a CUDA-only wheel{where}",
                    fill(
                        "remove it once the code that imports it is ported to the {DEVICE}",
                        self.target,
                    ),
                )
                return


def _order(version: str) -> tuple[int, ...]:
    return release(version) or (0,)


def _nearest(version: str, known: frozenset[str]) -> str:
    """The known release of the same minor series (else the closest newer, else older)."""
    wanted = _order(version)
    same = [v for v in known if _order(v)[:2] == wanted[:2]]
    if same:
        return max(same, key=_order)
    newer = [v for v in known if _order(v) > wanted]
    return min(newer, key=_order) if newer else max(known, key=_order)


def _ending(line: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if line.endswith(ending):
            return ending
    # The torch line ends the file without a newline: so does the inserted line.
    return ""
