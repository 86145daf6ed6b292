"""Container images built on a CUDA base image."""

from __future__ import annotations

import re

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import reported
from migrator.core.model import Finding, FixAvailability

_FROM = re.compile(
    r"^(?P<indent>\s*)FROM\s+(?:--platform=\S+\s+)?(?P<image>\S+)", re.IGNORECASE | re.MULTILINE
)
# Repositories whose every image is a CUDA one, and tags that name CUDA on any repository.
_CUDA_REPOSITORIES = re.compile(
    r"^(?:docker\.io/)?(?:nvidia/cuda|nvidia/cudagl|nvcr\.io/nvidia/[^:]+)(?::|$)"
)
_CUDA_TAG = re.compile(r":[^/]*(?:cuda|cudnn|cu\d{2,3})", re.IGNORECASE)


class CudaBaseImage(TextRule):
    """Report Dockerfiles whose `FROM` is a CUDA image, and suggest an Ascend one.

    What it reports: each `FROM` line (any stage) whose image is `nvidia/cuda:*`,
    `nvidia/cudagl:*`, an NGC image (`nvcr.io/nvidia/pytorch:*`, ...), or any image whose
    tag names CUDA (`pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime`, `...:cu118`).
    Nothing is rewritten.

    Why: an image built on CUDA has the CUDA toolkit and a CUDA build of torch, and no
    CANN; on an Ascend host the container sees no NPU runtime, and `import torch_npu`
    fails on missing CANN libraries. The right base depends on the host's CANN version
    and the torch-npu release, which only the person deploying knows, so it is a
    suggestion: Ascend publishes images with CANN (for example `ascendai/cann`) and with
    CANN, torch and torch_npu (for example `ascendai/pytorch`); the container also needs
    the host's driver and `/dev/davinci*` devices mounted.

    Example: `FROM nvidia/cuda:12.1.0-cudnn8-devel-ubuntu22.04` is reported.

    Left alone: images whose tag does not name CUDA (`python:3.11-slim`, `ubuntu:22.04`),
    `FROM` of a stage built earlier in the file, text in comments.

    Safety: reports only.
    """

    code = "NPU112"
    action = "host-setup"
    fix_availability = FixAvailability.NEVER
    name = "cuda-base-image"
    summary = "Report Dockerfile FROM lines with CUDA base images; suggest an Ascend (CANN) image."
    trigger = Trigger(
        tokens=("FROM", "from"),
        unit=Unit.FILE,
        files=(
            "Dockerfile",
            "Dockerfile.*",
            "*.Dockerfile",
            "*.dockerfile",
            "Containerfile",
        ),
    )
    examples = (
        reported(
            "FROM nvidia/cuda:12.1.0-cudnn8-devel-ubuntu22.04\nRUN pip install torch\n",
            "Dockerfile",
        ),
        reported("FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime AS base\n", "Dockerfile"),
        Example("FROM python:3.11-slim\n# FROM nvidia/cuda:12.1.0-base\n", None, "Dockerfile"),
    )

    def check(self, text: str) -> list[Finding]:
        self._found: list[Finding] = []
        for match in _FROM.finditer(text):
            image = match.group("image")
            if not (_CUDA_REPOSITORIES.match(image) or _CUDA_TAG.search(image)):
                continue
            line = text.count("\n", 0, match.start()) + 1
            self._report(
                line,
                len(match.group("indent")) + 1,
                f"FROM {image}: a CUDA base image, with no CANN for the "
                f"{self.target.device_type.upper()}",
                "base it on an Ascend image for the host's CANN version, for example "
                "ascendai/cann (CANN) or ascendai/pytorch (CANN, torch and torch_npu), and "
                "mount the host's driver and /dev/davinci* devices",
            )
        return self._found

    def _report(self, line: int, col: int, message: str, suggestion: str = "") -> None:
        self._found.append(self.warning(line, col, message, suggestion))
