"""The device target as data: every rule reads target names from here, never from literals.

A second target (another PrivateUse1 backend, say) is added by building another `Target`
value; no rule needs to change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from migrator import data


@dataclass(frozen=True)
class EnvMapping:
    """How one CUDA-side environment variable maps to the target.

    `target` is None when the target has no equivalent (the rules then warn).
    `scale` converts a literal integer value (e.g. milliseconds to seconds: 0.001).
    `reference` names the documentation of both variables, so a row can be checked.
    """

    source: str
    target: str | None
    scale: float = 1.0
    note: str = ""
    reference: str = ""


def _frozen(mapping: Mapping[str, EnvMapping]) -> Mapping[str, EnvMapping]:
    # A plain dict (typed read-only) so targets pickle into worker processes.
    return dict(mapping)


@dataclass(frozen=True)
class Target:
    """Everything a rule needs to know about the device it migrates to."""

    name: str
    device_type: str
    source_device_type: str
    dist_backend: str
    source_dist_backend: str
    runtime_module: str
    safety_net_module: str
    patcher_module: str
    patcher_name: str
    runtime_requirement: str
    device_apis: frozenset[str]
    env: Mapping[str, EnvMapping] = field(default_factory=lambda: _frozen({}))
    env_prefix: tuple[str, str] | None = None
    tf32_flags: Mapping[str, str] = field(default_factory=dict)
    cluster_gpu_request: str = "gpu"
    # The target's own replacements for CUDA-only tools, by topic; warnings name them in
    # their suggestions (see `migrator.contract.unsupported.fill`). A missing topic reads
    # generically.
    equivalents: Mapping[str, str] = field(default_factory=dict)
    # torch versions that have a matching runtime release (checked on the registry); a
    # pinned torch outside this set gets a warning instead of a runtime pin. Empty: any.
    runtime_torch_versions: frozenset[str] = frozenset()
    # What to do where the runtime cannot load (its toolkit's environment not set up), as
    # the entry scripts' set-up says it when it stops; empty: nothing beyond the install.
    runtime_setup: str = ""

    def env_mapping(self, name: str) -> EnvMapping | None:
        """The mapping for a CUDA-side variable, or None if the name is not CUDA-specific."""
        if name in self.env:
            return self.env[name]
        if self.env_prefix is not None and name.startswith(self.env_prefix[0]):
            return EnvMapping(name, None, note=f"no documented {self.name} equivalent")
        return None


# The torch.cuda names that torch.npu mirrors, from the released wheels (migrator/data):
# torch 2.7.1's torch.cuda names that torch_npu.npu of the default release also has.
_TORCH_NPU_DEVICE_APIS = data.mirrored_cuda_names(data.default_torch_npu())

# The torch versions torch-npu is released for (PyPI, checked 2026-10): torch-npu 2.7.1.postN
# needs torch==2.7.1, and there is no torch-npu for torch 2.7.0.
_TORCH_NPU_RELEASES = frozenset(
    {"2.1.0", "2.3.1", "2.4.0", "2.5.1", "2.6.0", "2.7.1", "2.8.0", "2.9.0", "2.9.1", "2.10.0",
     "2.11.0", "2.12.0", "2.13.0", "2.14.0"}
)  # fmt: skip

# Environment variables: a CUDA-side name is renamed only where both names are documented
# and mean the same (`reference` says where). NCCL_* variables are mapped only where the
# NCCL user guide documents the NCCL one and the CANN HCCL reference a counterpart; every
# other NCCL_* name is reported (env_prefix), and HCCL's own defaults are never set.
_NCCL_GUIDE = "NCCL user guide, Environment Variables"
_HCCL_REFERENCE = "CANN HCCL user guide, Environment Variables"
_TORCH_NPU_ENV = "torch_npu environment variable reference"
_NPU_ENV = (
    EnvMapping(
        "CUDA_VISIBLE_DEVICES",
        "ASCEND_RT_VISIBLE_DEVICES",
        reference="CUDA programming guide, CUDA environment variables; CANN environment "
        "variable reference",
    ),
    EnvMapping(
        "CUDA_LAUNCH_BLOCKING",
        "ASCEND_LAUNCH_BLOCKING",
        reference=f"CUDA programming guide, CUDA environment variables; {_TORCH_NPU_ENV}",
    ),
    EnvMapping(
        "PYTORCH_CUDA_ALLOC_CONF",
        "PYTORCH_NPU_ALLOC_CONF",
        reference=f"PyTorch docs, CUDA semantics (memory management); {_TORCH_NPU_ENV}",
    ),
    EnvMapping(
        "NCCL_SOCKET_IFNAME",
        "HCCL_SOCKET_IFNAME",
        reference=f"{_NCCL_GUIDE}, NCCL_SOCKET_IFNAME; {_HCCL_REFERENCE}, Network",
    ),
    EnvMapping(
        "NCCL_SOCKET_FAMILY",
        "HCCL_SOCKET_FAMILY",
        reference=f"{_NCCL_GUIDE}, NCCL_SOCKET_FAMILY; {_HCCL_REFERENCE}, Network",
    ),
    EnvMapping(
        "NCCL_BUFFSIZE",
        "HCCL_BUFFSIZE",
        scale=1 / (1024 * 1024),
        note="HCCL_BUFFSIZE is in MB (NCCL_BUFFSIZE is in bytes)",
        reference=f"{_NCCL_GUIDE}, NCCL_BUFFSIZE; {_HCCL_REFERENCE}, Function (HCCL_BUFFSIZE)",
    ),
    # PyTorch's own variables (the older name has an NCCL_ prefix), not NCCL's.
    EnvMapping(
        "TORCH_NCCL_ASYNC_ERROR_HANDLING",
        "HCCL_ASYNC_ERROR_HANDLING",
        reference=f"PyTorch docs, torch.distributed environment variables; {_TORCH_NPU_ENV}",
    ),
    EnvMapping(
        "NCCL_ASYNC_ERROR_HANDLING",
        "HCCL_ASYNC_ERROR_HANDLING",
        note="PyTorch's older name of TORCH_NCCL_ASYNC_ERROR_HANDLING",
        reference=f"PyTorch docs, torch.distributed environment variables; {_TORCH_NPU_ENV}",
    ),
    EnvMapping(
        "NCCL_DEBUG",
        None,
        note="HCCL logs: ASCEND_GLOBAL_LOG_LEVEL and ASCEND_SLOG_PRINT_TO_STDOUT",
        reference=f"{_NCCL_GUIDE}, NCCL_DEBUG; CANN environment variable reference, logs",
    ),
    # Set by many launch scripts, documented by neither NCCL nor PyTorch: mapping the value
    # would invent an HCCL setting (NCCL_TIMEOUT=10000 as HCCL_EXEC_TIMEOUT is a 2.8 h hang
    # limit where HCCL's default is about 30 minutes).
    EnvMapping(
        "NCCL_TIMEOUT",
        None,
        note="not an NCCL variable: the NCCL guide documents no such setting, so it set "
        "nothing on CUDA either; HCCL_EXEC_TIMEOUT keeps HCCL's default (about 30 minutes): "
        "set it only if a collective really needs longer",
        reference=_NCCL_GUIDE,
    ),
    EnvMapping(
        "NCCL_SOCKET_TIMEOUT_MS",
        None,
        note="not an NCCL variable: the NCCL guide documents no such setting, so it set "
        "nothing on CUDA either; HCCL_CONNECT_TIMEOUT (seconds) keeps HCCL's default: set it "
        "only if the ranks need longer to connect",
        reference=_NCCL_GUIDE,
    ),
    EnvMapping(
        "CUDA_DEVICE_ORDER",
        None,
        note="NPU devices are always ordered by physical id",
        reference="CUDA programming guide, CUDA environment variables",
    ),
    EnvMapping(
        "CUDA_HOME",
        None,
        note="the CANN toolkit is set up by its set_env.sh",
        reference="PyTorch docs, torch.utils.cpp_extension",
    ),
)

NPU = Target(
    name="npu",
    device_type="npu",
    source_device_type="cuda",
    dist_backend="hccl",
    source_dist_backend="nccl",
    runtime_module="torch_npu",
    safety_net_module="torch_npu.contrib.transfer_to_npu",
    patcher_module="mx_driving.patcher",
    patcher_name="default_patcher_builder",
    runtime_requirement="torch-npu",
    device_apis=_TORCH_NPU_DEVICE_APIS,
    env=_frozen({m.source: m for m in _NPU_ENV}),
    env_prefix=("NCCL_", "HCCL_"),
    tf32_flags={
        "torch.backends.cuda.matmul.allow_tf32": "torch.npu.matmul.allow_hf32",
        "torch.backends.cudnn.allow_tf32": "torch.npu.conv.allow_hf32",
    },
    equivalents={
        "fused_attention": "torch_npu.npu_fusion_attention",
        "rotary_mul": "torch_npu.npu_rotary_mul",
        "rms_norm": "torch_npu.npu_rms_norm",
        "grouped_matmul": "torch_npu.npu_grouped_matmul",
        "profiler": "torch_npu.profiler",
        "extension_ops": "mx_driving",
        "graph_capture": "torch.npu.NPUGraph / torch.npu.graph / torch.npu.make_graphed_callables",
        "graph_compiler": "torchair: torch.compile(m, backend=torchair.get_npu_backend())",
        "profiler_markers": (
            "torch_npu.npu.mstx.mark/range_start/range_end, read by the torch_npu profiler"
        ),
        "device_query": "npu-smi info",
        "kernel_language": "Ascend C custom operators",
        "cpp_extension": "torch_npu.utils.cpp_extension.NpuExtension or its load()",
        "triton_port": "the separate triton-ascend package",
        "apex_port": (
            "Ascend's patched apex, Ascend/apex, which keeps apex.amp and fused optimizers"
        ),
    },
    runtime_torch_versions=_TORCH_NPU_RELEASES,
    # CANN's default install folders: /usr/local/Ascend as root, ~/Ascend per user.
    runtime_setup=(
        "source CANN's set_env.sh first (/usr/local/Ascend/ascend-toolkit/set_env.sh, or "
        "~/Ascend/ascend-toolkit/set_env.sh for a per-user install)"
    ),
)

TARGETS: Mapping[str, Target] = MappingProxyType({NPU.name: NPU})
