"""CUDA wheels and the torch pin in requirements and constraints files."""

from __future__ import annotations

import re

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from migrator import data
from migrator.analysis.dependencies import (
    COMPANIONS,
    CUDA_URL,
    TRITON,
    choose_torch,
    companion,
    cpu_index,
    is_cuda_library,
    kept_off_aarch64,
    wheel_advice,
)
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill
from migrator.core.model import Finding, TextEdit
from migrator.formats.requirements import Entry, normalize, parse, release
from migrator.formats.sources import newline_of, split_lines

_DOCS = re.compile(r"(?:^|[/_.-])(?:docs?|readthedocs|sphinx)(?:[/_.-]|$)", re.IGNORECASE)
_INDEX_OPTIONS = frozenset({"-i", "--index-url", "--extra-index-url", "-f", "--find-links"})
_TORCH = "torch"


class CudaRequirements(TextRule):
    """Drop torch's CUDA wheels from requirements files, move torch to a release the
    target's runtime has and pin that runtime beside it, and report CUDA-only wheels.

    What it does, in `requirements*.txt`, `requirements/*.txt` and `constraints*.txt`:

    - deletes `nvidia-*-cu12` / `-cu11` pins (cuBLAS, cuDNN, NCCL, ...) and `triton` /
      `pytorch-triton`: torch's CUDA build pulls these in, nothing else imports them, and a
      torch used with torch-npu is the CPU build. A deleted requirement takes its
      continuation lines and the indented comments right below it (pip-compile's `# via`
      block) with it;
    - moves a torch pin to the nearest torch that has a torch-npu release
      (`Target.runtime_torch_versions`; policy in `migrator.analysis.dependencies`):
      `torch==2.7.1+cu126` -> `torch==2.7.1` (the CPU build, safe), `torch==2.7.0` ->
      `2.7.1`, `torch==2.4.1` -> `2.4.0`, `torch==2.0.1+cu118` -> `2.1.0` (the next
      minor: flagged for review). A pin of an older major (`torch==1.13.1`) is a warning
      with the candidates: only a person can choose such an upgrade;
    - moves `torchvision` / `torchaudio` pins to the release built for that torch
      (torchvision 0.(N+15).P for torch 2.N.P, torchaudio = torch), dropping `+cuXXX`
      labels, flagged for review when torch itself moved to another release;
    - after the torch pin it inserts `torch-npu==X.*` (the target's `runtime_requirement`;
      torch-npu 2.7.1.postN needs torch==2.7.1), with the torch line's environment marker,
      unless the file already names torch-npu; a torch newer than every known release
      gets that line flagged for review;
    - rewrites `--extra-index-url` / `--index-url https://download.pytorch.org/whl/cu118`
      to PyTorch's CPU index `.../whl/cpu` (it has aarch64 and x86_64 wheels); other CUDA
      wheel links (`-f .../torch-2.1.0+cu121.html`, a direct `+cu121` wheel URL) are
      reported;
    - after an unpinned or ranged torch (`torch`, `torch>=1.7`) whose range admits the
      torch of the target torch-npu release (`migrator.data.release`), it inserts
      `torch-npu==<that torch>.*`: torch-npu requires its torch exactly, so pip installs
      that torch; a range that excludes it, or a docs build's file (`readthedocs.txt`,
      `docs/requirements.txt`), is reported;
    - deletes `flash-attn` (flagged for review): it has no wheel and its source build needs
      CUDA, so `pip install -r` stops at it on an Ascend host; NPU050 reports its imports;
    - reports a ranged torch that excludes the target's (pin it so the runtime can match),
      a hash-checked torch line (the new lines would need their own hashes), a torch-npu pin
      that does not match torch, and CUDA-only wheels, each with what to do instead:
      `xformers`, `transformer-engine`, `natten`, `apex`, `liger-kernel`, `decord` (no
      aarch64 wheel), `torch-scatter`/`torch-cluster`/`spconv`, `bitsandbytes`, `cupy`,
      `pynvml`/`nvidia-ml-py`, `vllm` (vllm-ascend), `pycuda`, TensorRT,
      `onnxruntime-gpu`, ...

    Everything else stays byte for byte: comments, environment markers, hashes, `-r`/`-c`
    includes, line continuations, CRLF line endings.

    The file is rewritten in place, and the report lists each line changed, so the CUDA
    lock becomes the NPU one. A project profile that writes the host's requirements to a
    file of its own leaves this rule out (dit4dit writes `requirements-npu.txt` and keeps
    `requirements.txt` as upstream's CUDA lock).

    Why delete rather than comment out: the diff already shows each removed line and the
    report gives the reason; commented-out pins would stay in the file for good, and a
    commented requirements file reads as if the pins were still meant. CUDA-only wheels
    the code imports are reported, not removed, because their imports must be ported
    first; flash-attn is the exception: it cannot even be installed there, so keeping it
    only stops `pip install -r` before anything else is installed.

    Why at all: on an Ascend host the `nvidia-*-cu12` wheels and `triton` are dead weight
    at best (x86_64) and uninstallable at worst (aarch64 has no such wheels for most
    pins); a `+cu118` torch or one with no torch-npu release cannot be installed beside
    the NPU runtime, and without `torch-npu` pinned to torch's exact version the runtime
    either is missing or refuses the installed torch.

    Example: `torch==2.0.1+cu118` followed by `torchvision==0.15.2+cu118` becomes
    `torch==2.1.0`, `torch-npu==2.1.0.*`, `torchvision==0.16.0`.

    Safety: safe; a torch moved to another release (and its companions) is flagged needs
    review.
    """

    code = "NPU102"
    action = "dependencies"
    name = "cuda-requirements"
    summary = "Drop nvidia-*-cu12/triton/flash-attn pins, pin torch-npu beside torch, report more."
    # pip names ignore case and separators (`Torch`, `flash_attn`): no substring is certain
    # to occur, so the empty token lets every requirements file through.
    trigger = Trigger(
        tokens=("",),
        unit=Unit.FILE,
        files=(
            "requirements*.txt",
            "requirements/*.txt",
            "*/requirements/*.txt",
            "constraints*.txt",
        ),
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
        self._text = text
        entries = parse(lines)
        runtime = normalize(self.target.runtime_requirement)
        has_runtime = any(entry.name == runtime for entry in entries)
        torch_pins = {
            pin for e in entries if e.name == _TORCH and (pin := e.pinned_version) is not None
        }
        # The torch each companion (torchvision, torchaudio) must match: the chosen one.
        self._torch_choice: str | None = None
        self._torch_moved = False
        # A torch pin only a person can move: its companions wait for that choice.
        self._torch_open = False
        for entry in entries:
            if entry.name == _TORCH:
                self._torch(entry, has_runtime, lines)
        for index, entry in enumerate(entries):
            if entry.option in _INDEX_OPTIONS and CUDA_URL.search(entry.value):
                self._index(entry, lines)
            if entry.name is None or entry.name == _TORCH:
                continue
            if is_cuda_library(entry.name):
                self._delete(entries, lines, index)
            elif entry.name == runtime:
                self._check_runtime(entry, torch_pins)
            elif entry.name in COMPANIONS:
                self._companion(entry, lines)
            else:
                self._cuda_only(entries, lines, index)
            if entry.url and CUDA_URL.search(entry.url):
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

    def _replace(self, line: int, lines: list[str], old: str, new: str) -> TextEdit:
        """Replacing the first `old` on 0-based `line` with `new`."""
        at = self._starts[line] + lines[line].index(old)
        return TextEdit(at, at + len(old), new)

    def _index(self, entry: Entry, lines: list[str]) -> None:
        """PyTorch's CUDA index becomes its CPU index; other CUDA wheel links are reported."""
        new = cpu_index(entry.value)
        line = lines[entry.first]
        if new is not None and entry.value in line:
            message = (
                f"{entry.option} {entry.value} -> {new}: the CPU build of torch, which "
                f"{self.target.runtime_requirement} needs (the CPU index has aarch64 and x86_64 "
                "wheels)"
            )
            edit = self._replace(entry.first, lines, entry.value, new)
            self._found.append(self.change(entry.first + 1, entry.column, message, edit))
            return
        self._warn(
            entry, f"{entry.option} {entry.value} serves CUDA builds of torch", self._index_hint()
        )

    # Deleting torch's CUDA wheels -----------------------------------------------------
    def _delete(self, entries: list[Entry], lines: list[str], index: int) -> None:
        entry = entries[index]
        runtime = self.target.runtime_requirement
        what = "Triton's CUDA compiler" if entry.name in TRITON else "a CUDA library of torch"
        message = f"removed {entry.requirement}: {what}, not used with {runtime}"
        if entry.name in TRITON:
            port = fill("{triton_port}", self.target)
            message += f" (Triton kernels the code writes, NPU051, need {port})"
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
    def _torch(self, entry: Entry, has_runtime: bool, lines: list[str]) -> None:
        """Move the torch pin to a release the runtime has, and insert the runtime line."""
        runtime = self.target.runtime_requirement
        version = entry.pinned_version
        if version is None:
            if not has_runtime:
                self._unpinned(entry, lines)
            return
        base, _, local = version.partition("+")
        gpu_build = local.startswith(("cu", "rocm"))
        choice = choose_torch(base, self.target.runtime_torch_versions)
        if choice.version is None:
            self._torch_open = True
            self._warn(
                entry,
                f"no {runtime} release matches torch=={version}: {choice.reason}",
                f"pin torch to one of {', '.join(choice.candidates)} with {runtime}==X.* and a "
                "torchvision/torchaudio that matches; only a person can choose",
            )
            return
        chosen = choice.version
        self._torch_choice = chosen
        moved = chosen != base or gpu_build
        if moved and not self._move_torch(entry, lines, version, chosen, gpu_build, choice.reason):
            return
        if has_runtime:
            return
        if entry.hashed:
            self._warn(
                entry,
                f"hash-checked torch pin: {runtime}=={chosen}.* was not added",
                f"add {runtime}=={chosen}.* with its --hash lines",
            )
            return
        review = choice.review and chosen == base
        marker = f"; {entry.marker}" if entry.marker else ""
        new_line = f"{runtime}=={chosen}.*{marker}{_ending(lines[entry.last])}"
        message = f"added {runtime}=={chosen}.* after torch=={chosen}"
        if review:
            message += f" ({choice.reason})"
        if not lines[entry.last].endswith(("\n", "\r")):
            new_line = newline_of(self._text) + new_line
        at = self._starts[entry.last + 1]
        insertion = TextEdit(at, at, new_line)
        self._found.append(
            self.change(entry.first + 1, entry.column, message, insertion, review=review or None)
        )

    def _unpinned(self, entry: Entry, lines: list[str]) -> None:
        """`torch` / `torch>=1.7`: the target release's torch-npu goes beside it when the
        range admits that release's torch (torch-npu requires its torch exactly, so pip then
        installs that torch); otherwise the range is reported."""
        runtime = self.target.runtime_requirement
        release = self.ctx.project.target_release.version
        torch = data.torch_npu_release(release).torch_version
        try:
            admits = SpecifierSet(entry.specifier).contains(torch, prereleases=True)
        except InvalidSpecifier:
            admits = False
        # A docs build (`requirements/readthedocs.txt`, `docs/requirements.txt`) installs
        # torch to import the code, on no NPU host.
        if not admits or entry.hashed or _DOCS.search(self.ctx.path):
            self._warn(
                entry,
                f"torch is not pinned ({entry.specifier or 'no version'}), so no "
                f"{runtime} pin can match it",
                f"pin torch==X to a version {runtime} is released for and add {runtime}==X.*",
            )
            return
        marker = f"; {entry.marker}" if entry.marker else ""
        new_line = f"{runtime}=={torch}.*{marker}{_ending(lines[entry.last])}"
        if not lines[entry.last].endswith(("\n", "\r")):
            new_line = newline_of(self._text) + new_line
        at = self._starts[entry.last + 1]
        message = (
            f"added {runtime}=={torch}.* after the unpinned torch "
            f"({entry.specifier or 'no version'}): {runtime} {release} requires torch=={torch}, "
            "which pip then installs; pin torch too if the project needs one release"
        )
        self._found.append(
            self.change(entry.first + 1, entry.column, message, TextEdit(at, at, new_line))
        )

    def _move_torch(
        self,
        entry: Entry,
        lines: list[str],
        version: str,
        chosen: str,
        gpu_build: bool,
        reason: str,
    ) -> bool:
        """Rewrite `torch==version` to `torch==chosen` in place; False (reported) if not."""
        runtime = self.target.runtime_requirement
        why = [f"a GPU build, not the CPU build {runtime} needs"] if gpu_build else []
        if chosen != version.partition("+")[0]:
            why.append(reason)
        if entry.hashed or version not in lines[entry.first]:
            self._warn(
                entry,
                f"torch=={version}: {'; '.join(why)}",
                f"pin torch=={chosen} and add {runtime}=={chosen}.*",
            )
            return False
        message = f"torch=={version} -> torch=={chosen}: {'; '.join(why)}"
        review = chosen != version.partition("+")[0]
        edit = self._replace(entry.first, lines, version, chosen)
        self._found.append(self.change(entry.first + 1, entry.column, message, edit, review=review))
        self._torch_moved = self._torch_moved or review
        return True

    def _companion(self, entry: Entry, lines: list[str]) -> None:
        """torchvision/torchaudio: the release built for the chosen torch, as a CPU build."""
        assert entry.name is not None
        version = entry.pinned_version
        if version is None or self._torch_open:
            return
        base, _, local = version.partition("+")
        gpu_build = local.startswith(("cu", "rocm"))
        wanted = base
        checked = True
        if self._torch_choice is not None:
            found = companion(entry.name, self._torch_choice)
            if found is not None:
                wanted, checked = found
        if wanted == base and not gpu_build:
            return
        why = []
        if gpu_build:
            why.append("a GPU build")
        if wanted != base:
            why.append(f"{wanted} is the {entry.name} built for torch {self._torch_choice}")
        if entry.hashed or version not in lines[entry.first]:
            self._warn(
                entry, f"{entry.name}=={version}: {'; '.join(why)}", f"pin {entry.name}=={wanted}"
            )
            return
        review = wanted != base and (self._torch_moved or not checked)
        message = f"{entry.name}=={version} -> {entry.name}=={wanted}: {'; '.join(why)}"
        edit = self._replace(entry.first, lines, version, wanted)
        self._found.append(
            self.change(entry.first + 1, entry.column, message, edit, review=review or None)
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

    def _cuda_only(self, entries: list[Entry], lines: list[str], index: int) -> None:
        entry = entries[index]
        assert entry.name is not None
        advice = wheel_advice(entry.name)
        if advice is None or (advice.aarch64_only and kept_off_aarch64(entry.marker)):
            return
        why = f" ({advice.why})" if advice.why else ""
        where = f"; {advice.code} reports its imports" if advice.code else ""
        if advice.uninstallable and not entry.hashed:
            message = (
                f"removed {entry.requirement}: no {self.target.device_type.upper()} build{why}, "
                f"and its source build needs CUDA, so pip install stops at it{where} "
                f"({fill(advice.suggestion, self.target)})"
            )
            edits = [self._lines(entry.first, entry.last)]
            self._found.append(
                self.change(entry.first + 1, entry.column, message, *edits, review=True)
            )
            return
        self._warn(
            entry,
            f"{entry.name} has no {self.target.device_type.upper()} build{why}{where}",
            fill(advice.suggestion, self.target),
        )


def _ending(line: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if line.endswith(ending):
            return ending
    # The torch line ends the file without a newline: so does the inserted line.
    return ""
