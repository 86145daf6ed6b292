"""CUDA source files (`.cu`, `.cuh`)."""

from __future__ import annotations

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill, reported
from migrator.core.model import Finding, FixAvailability


class CudaSource(TextRule):
    """Report each CUDA source file (`*.cu`, `*.cuh`) once, at its first line.

    What it reports: one warning per file whose name ends in `.cu` or `.cuh`, whatever it
    holds; the file is never changed. The build rules that compile it are reported by
    NPU055 (cuda-extension).

    Why: CUDA C++ is compiled by nvcc for NVIDIA GPUs; an Ascend host has no CUDA toolkit
    and the NPU does not run CUDA kernels. Each kernel must be replaced by PyTorch ops or
    rewritten as an Ascend C operator.

    Example: `csrc/attention_kernel.cu` gets one warning at line 1.

    Safety: reports only, never rewrites.

    Caveats: `// migrate: ignore` comments are not read in CUDA files (suppressions are
    `#` comments); leave a vendored kernel out with the walk's exclude patterns instead.
    """

    code = "NPU056"
    action = "replace-library"
    fix_availability = FixAvailability.NEVER
    name = "cuda-source"
    summary = "Report each .cu/.cuh file once: CUDA kernels must be ported by hand."
    # The empty token occurs in every text: the file name, not its content, decides.
    trigger = Trigger(tokens=("",), unit=Unit.FILE, files=("*.cu", "*.cuh"))
    examples = (
        reported("__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }\n", "kernel.cu"),
        Example('SOURCES = ["ops.cpp", "kernel.cu"]\n', path="build.py"),
    )

    def check(self, text: str) -> list[Finding]:
        warning = self.warning(
            1,
            1,
            fill("CUDA source file: nvcc-compiled kernels do not run on the {DEVICE}", self.target),
            fill("replace its kernels with PyTorch ops or {kernel_language}", self.target),
        )
        return [warning]
