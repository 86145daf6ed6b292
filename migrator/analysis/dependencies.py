"""What a CUDA project's dependencies become on the target: one policy for every file format.

The rules that read requirements files, `pyproject.toml`, `setup.py`/`setup.cfg` and
conda environments ask this module what a requirement means on the target; each keeps
its own file format. Nothing here reads files or reports.

- `choose_torch`: the torch version to pin for a CUDA project's torch pin, from the torch
  versions that have a torch-npu release (`Target.runtime_torch_versions`);
- `companion`: the torchvision / torchaudio release built for a torch release;
- `wheel_advice`: CUDA-only wheels, each with what to do instead; `is_cuda_library`:
  torch's own CUDA wheels and Triton, which nothing imports once torch is a CPU build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from migrator import data

# torch's own CUDA dependencies: nothing imports them once torch is not a CUDA build.
_CUDA_LIBRARY = re.compile(r"^nvidia-[a-z0-9-]+-cu\d+$")
TRITON = frozenset({"triton", "pytorch-triton"})

# torchvision is released in lockstep with torch: torch 2.N.P pairs with torchvision
# 0.(N+15).P from torch 2.1 on; torchaudio carries torch's own version. Checked on PyPI
# for these torch releases; for others the pairing rule is applied and flagged.
_CHECKED_COMPANIONS = frozenset(
    {"2.1.0", "2.1.1", "2.1.2", "2.2.0", "2.2.1", "2.2.2", "2.3.0", "2.3.1", "2.4.0", "2.4.1",
     "2.5.0", "2.5.1", "2.6.0", "2.7.0", "2.7.1", "2.8.0", "2.9.0", "2.9.1"}
)  # fmt: skip
COMPANIONS = ("torchvision", "torchaudio")


@dataclass(frozen=True)
class TorchChoice:
    """The torch to pin (None: a person must choose among `candidates`) and why."""

    version: str | None
    reason: str
    review: bool = False
    candidates: tuple[str, ...] = ()


def normalize(name: str) -> str:
    """The PEP 503 form of a project name: `Torch_NPU` -> `torch-npu`."""
    return str(canonicalize_name(name))


def _order(version: str) -> tuple[int, ...]:
    try:
        return Version(version).release
    except InvalidVersion:
        return (0,)


def default_torch() -> str:
    """The torch of the default torch-npu release (the stack of an Ascend host today)."""
    return data.torch_npu_release(data.default_torch_npu()).torch_version


def choose_torch(version: str, known: frozenset[str]) -> TorchChoice:
    """The torch release nearest to `version` that the runtime is released for.

    Same release: kept. Another patch of the same minor series (torch 2.7.0 -> 2.7.1) or
    the next newer minor of the same major (2.0.1 -> 2.1.0): chosen, flagged for review.
    Newer than every known release: kept, flagged (the data may be older than the pin).
    An older major (1.13): a person chooses, among the oldest release and the one the
    newest mx-driving and the default torch-npu use.
    """
    base = version.partition("+")[0]
    if not known or base in known:
        return TorchChoice(base, "")
    wanted = _order(base)
    newest = max(known, key=_order)
    if wanted > _order(newest):
        return TorchChoice(
            base, f"torch {base} is newer than the torch-npu releases checked", review=True
        )
    same = [v for v in known if _order(v)[:2] == wanted[:2]]
    if same:
        chosen = max(same, key=_order)
        return TorchChoice(
            chosen, f"torch-npu is released for torch {chosen}, not {base}", review=True
        )
    newer = sorted((v for v in known if _order(v) > wanted), key=_order)
    if newer and _order(newer[0])[:1] == wanted[:1]:
        return TorchChoice(
            newer[0],
            f"no torch-npu for torch {'.'.join(map(str, wanted[:2]))}; {newer[0]} is the "
            "nearest newer release",
            review=True,
        )
    candidates = tuple(dict.fromkeys(v for v in [*newer[:1], default_torch()] if v in known))
    return TorchChoice(
        None,
        f"no torch-npu for torch {base}, and the nearest release is another major version",
        candidates=candidates,
    )


def companion(name: str, torch: str) -> tuple[str, bool] | None:
    """(the `name` release built for torch `torch`, whether that pairing was checked)."""
    parts = _order(torch)
    if len(parts) < 3 or parts[0] != 2 or parts[1] < 1:
        return None
    checked = torch in _CHECKED_COMPANIONS
    if name == "torchvision":
        return f"0.{parts[1] + 15}.{parts[2]}", checked
    if name == "torchaudio":
        return torch, checked
    return None


def is_cuda_library(name: str) -> bool:
    """torch's CUDA wheels (`nvidia-cublas-cu12`) and Triton: dead weight with torch-npu."""
    name = normalize(name)
    return bool(_CUDA_LIBRARY.match(name)) or name in TRITON


@dataclass(frozen=True)
class WheelAdvice:
    """Why a wheel has no target build, what to do, and the rule that reports its imports."""

    why: str
    suggestion: str
    code: str = ""
    # Only the aarch64 build is missing: a requirement kept off aarch64 is fine.
    aarch64_only: bool = False
    # No wheel, and its source build needs CUDA (nvcc, CUDA_HOME): `pip install -r` stops
    # at it on an Ascend host, so a requirements file drops it (NPU102) instead of keeping a
    # line that cannot install; its imports are reported by `code`.
    uninstallable: bool = False


# Regexes on PEP 503 names. `{...}` in suggestions are `Target.equivalents` topics.
_WHEELS: tuple[tuple[re.Pattern[str], WheelAdvice], ...] = tuple(
    (re.compile(pattern), advice)
    for pattern, advice in (
        (r"^flash-attn(-\d+)?$", WheelAdvice(
            "CUDA kernels",
            "{fused_attention}; transformers >= 4.56 runs attn_implementation="
            "'flash_attention_2' on it by itself",
            "NPU050", uninstallable=True)),
        (r"^xformers$", WheelAdvice(
            "CUDA kernels",
            "torch.nn.functional.scaled_dot_product_attention or {fused_attention}", "NPU052")),
        (r"^transformer-engine(-[a-z0-9]+)?$", WheelAdvice(
            "NVIDIA's fp8 kernels",
            "torch.nn layers under torch.autocast bf16 in place of te.* modules")),
        (r"^natten$", WheelAdvice(
            "CUDA kernels",
            "port its neighbourhood attention to torch ops (SDPA with a local mask)")),
        (r"^apex$", WheelAdvice("", "{apex_port}", "NPU053")),
        (r"^liger-kernel(-nightly)?$", WheelAdvice(
            "Triton kernels for CUDA", "drop it (the model's torch code runs), or {triton_port}")),
        (r"^(decord|eva-decord)$", WheelAdvice(
            "no aarch64 wheel, and Ascend hosts are aarch64",
            "build decord from source, or read video with opencv-python, av (PyAV) or torchcodec",
            "NPU005", aarch64_only=True)),
        (r"^(torch-scatter|torch-sparse|torch-cluster|torch-spline-conv|pyg-lib)$", WheelAdvice(
            "CUDA builds of PyG's extensions",
            "mx_driving.patcher's TorchScatter patch puts torch_scatter on NPU ops; for the "
            "others, the CPU wheels")),
        (r"^spconv(-cu\d+)?$", WheelAdvice(
            "", "mx_driving.patcher's SparseConv3D patch (spconv3d)")),
        (r"^bitsandbytes$", WheelAdvice(
            "",
            "bitsandbytes' multi-backend branch has an NPU backend; check its status",
            "NPU058")),
        (r"^cupy(-cuda\w*)?$", WheelAdvice(
            "", "numpy on the host, torch ops on the {DEVICE}", "NPU054")),
        (r"^(nvidia-ml-py3?|pynvml|py3nvml)$", WheelAdvice(
            "NVIDIA's management library", "{device_query}, torch.{device} memory APIs",
            "NPU061")),
        (r"^(vllm|vllm-flash-attn)$", WheelAdvice(
            "", "vllm-ascend, the Ascend plugin of vLLM, with the same vllm version")),
        (r"^pycuda$", WheelAdvice("a CUDA binding", "port its kernels to {kernel_language}")),
        (r"^(tensorrt(-[a-z0-9-]+)?|torch-tensorrt)$", WheelAdvice(
            "NVIDIA's inference compiler", "compile for the {DEVICE} with {graph_compiler}")),
        (r"^onnxruntime-gpu$", WheelAdvice(
            "", "onnxruntime with its CANN execution provider")),
        (r"^nvidia-dali-cuda\d+$", WheelAdvice("", "a CPU data pipeline")),
        (r"^(mamba-ssm|causal-conv1d)$", WheelAdvice(
            "CUDA kernels", "the packages' torch reference implementations")),
    )
)  # fmt: skip


_OFF_AARCH64 = re.compile(
    r"""platform_machine\s*(?:!=\s*["']aarch64["']|==\s*["'](?:x86_64|AMD64)["'])"""
)


def kept_off_aarch64(marker: str) -> bool:
    """Whether an environment marker keeps a requirement off aarch64 hosts."""
    return bool(_OFF_AARCH64.search(marker))


def wheel_advice(name: str) -> WheelAdvice | None:
    """What to do about a CUDA-only wheel, or None if `name` is not one."""
    name = normalize(name)
    for pattern, advice in _WHEELS:
        if pattern.match(name):
            return advice
    return None


# Wheel indexes and links that serve CUDA builds of torch (`.../whl/cu121`, `+cu118`).
CUDA_URL = re.compile(r"(?:/|%2B|\+)cu\d{2,3}(?=[/._-]|$)", re.IGNORECASE)
_PYTORCH_CUDA_INDEX = re.compile(r"(download\.pytorch\.org/whl/(?:nightly/)?)cu\d{2,3}(?=/|$)")


def cpu_index(url: str) -> str | None:
    """`https://download.pytorch.org/whl/cu118` -> `.../whl/cpu`; None for other URLs."""
    new = _PYTORCH_CUDA_INDEX.sub(r"\1cpu", url)
    return new if new != url else None
