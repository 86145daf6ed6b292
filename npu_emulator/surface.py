"""Which ``torch.npu`` / ``torch_npu`` names the emulated host has: the API data decides.

The released wheels' public names (``migrator/data/torch_npu_api.json``, read through
``releases``) are the host's API. A name the emulated release has is either provided by
the emulator (each module's ``__all__``; every one of them is in every release of the
data) or a deliberate gap below, with the reason; using a gap raises
:class:`~npu_emulator.errors.NotEmulatedError` with that reason. A name the release does
not have raises a plain ``AttributeError``, as the host's torch_npu does.
``tests/emulate/test_surface.py`` checks the three against the data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NoReturn

from npu_emulator import releases
from npu_emulator.errors import not_emulated


@dataclass(frozen=True)
class Gap:
    """Names of a torch_npu module that the emulator leaves out on purpose, and why."""

    reason: str
    names: frozenset[str] = frozenset()
    #: A regular expression the whole name matches (families such as ``npu_*`` operators).
    pattern: str | None = None

    def covers(self, name: str) -> bool:
        return name in self.names or (
            self.pattern is not None and re.fullmatch(self.pattern, name) is not None
        )


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CUSTOM_OPS = (
    "a torch_npu custom operator: only those that libraries call by themselves on a host "
    "are written with PyTorch ops (npu_ops.py, optimizer_ops.py); any other fails loudly "
    "instead of computing something unchecked"
)

GAPS: dict[str, tuple[Gap, ...]] = {
    "torch_npu": (
        Gap(_CUSTOM_OPS, pattern=r"npu_\w+"),
        Gap(
            _CUSTOM_OPS,
            _names(
                """
                HiFloat8Tensor attention_worker_scheduler attention_worker_scheduler_
                batch_norm_gather_stats_update batch_norm_reduce copy_memory_
                dropout_with_byte_mask empty_with_format empty_with_swapped_memory
                erase_stream fast_gelu ffn_worker_scheduler ffn_worker_scheduler_
                fft_c2r_backward fft_r2c_backward fused_cross_entropy_loss_with_max_sum
                fused_linear_cross_entropy_loss_with_max_sum_grad fused_linear_online_max_sum
                get_npu_format get_storage_size kl_div_backward kl_div_target_backward
                l1_loss_backward matmul_checksum matmul_double_backward one_
                repeat_interleave_backward_int repeat_interleave_backward_tensor
                scatter_update scatter_update_ slow_conv_dilated2d_backward
                slow_conv_transpose2d_backward stft_backward unsafe_empty_with_format
                """
            ),
        ),
        Gap(
            "a torch_npu submodule with no stand-in (its fused optimizers, profiler, ONNX "
            "export, distributed and dynamo extensions, test utilities): importing it fails",
            _names(
                "acc asd csan distributed dynamo jit multiprocessing onnx op_plugin optim "
                "profiler testing utils version"
            ),
        ),
        Gap(
            "start-up helpers and internals torch_npu binds at import (monkey patches, error "
            "codes, the sanitizer, its store): nothing a program calls",
            _names(
                """
                DefaultDeviceType ErrCode ORG_AUTOLOAD ParallelStore add_dynamo_methods
                add_optim_method add_perf_dump_patch all_monkey_patches apply_sanitizer_patch
                error_code error_code_msg public_npu_functions pta_error sharded_grad_scaler
                submodule_name unsupported_dtype
                """
            ),
        ),
        Gap(
            "model obfuscation of the Ascend inference stack",
            _names("obfuscation_calculate obfuscation_finalize obfuscation_initialize"),
        ),
    ),
    "torch_npu.npu": (
        Gap(
            "legacy typed storages: an npu tensor keeps a CPU storage inside (storage.py)",
            pattern=r"[A-Z][A-Za-z0-9]*Storage",
        ),
        Gap(
            "NPU graphs capture device work; here every op runs eagerly on the CPU, so "
            "there is nothing to capture or replay",
            _names(
                """
                NPUGraph NpuGraphOpHandler graph graph_pool_handle graph_task_group_begin
                graph_task_group_end graph_task_update_begin graph_task_update_end graphs
                is_current_stream_capturing make_graphed_callables npugraph_ex
                register_npu_graph_handler
                """
            ),
        ),
        Gap(
            "the caching allocator: memory is counted per live npu storage (_memory.py), "
            "with no allocator, pools, fractions or host cache behind it",
            _names(
                """
                MemPool MemPoolContext NPUPluggableAllocator caching_allocator_alloc
                caching_allocator_delete change_current_allocator check_uce_in_memory
                empty_virt_addr_cache get_allocator_backend get_per_process_memory_fraction
                host_empty_cache host_memory_stats host_memory_stats_as_nested_dict
                ipc_collect memory memory_snapshot memory_stats_as_nested_dict
                reset_accumulated_host_memory_stats reset_accumulated_memory_stats
                reset_peak_host_memory_stats set_per_process_memory_fraction use_mem_pool
                """
            ),
        ),
        Gap(
            "stream variants and limits: ops run eagerly, so only the plain Stream / Event "
            "API is emulated (streams.py)",
            _names(
                """
                ExternalEvent ExternalStream StreamContext SyncLaunchStream get_stream_limit
                get_sync_debug_mode reset_stream_limit set_stream_limit set_sync_debug_mode
                """
            ),
        ),
        Gap(
            "queries and controls of a real chip (SoC version, capability, limits, peer "
            "access, health checks, ACL handles, tracing): no true answer to give",
            _names(
                """
                ErrCode aclnn can_device_access_peer current_blas_handle get_device_capability
                get_device_limit get_soc_version mstx npurt preferred_linalg_library
                prof_error pta_error restart_device set_device_limit stop_device stress_detect
                utilization
                """
            ),
        ),
        Gap(
            "CANN operator settings (options, AOE tuning, dumps, formats, task queue, "
            "timeouts, compatible kernels): nothing here compiles or runs a CANN operator; "
            "set_compile_mode and the allow_hf32 / allow_internal_format flags are accepted "
            "(_flags.py)",
            _names(
                """
                CubeMathType are_compatible_impl_enabled backends finalize_dump
                get_mm_bmm_format_nd get_task_queue_enable init_dump is_jit_compile_false
                npu_config set_aoe set_dump set_mm_bmm_format_nd set_op_timeout_ms set_option
                set_task_queue_enable super_kernel_scope_begin super_kernel_scope_end
                use_compatible_impl
                """
            ),
        ),
        Gap(
            "the chip's float-status overflow registers",
            _names("clear_npu_overflow_flag get_npu_overflow_flag"),
        ),
        Gap(
            "NPU deterministic-kernel switches: the CPU kernels that run here do not change",
            _names(
                "deterministic disable_deterministic_with_backward "
                "enable_deterministic_with_backward set_deterministic_level"
            ),
        ),
        Gap(
            "torch_npu's SDPA backend switches: SDPA runs PyTorch's CPU kernel whatever is "
            "chosen; torch.backends.cuda's switches are the ones libraries probe",
            _names(
                "enable_flash_sdp enable_math_sdp enable_mem_efficient_sdp flash_sdp_enabled "
                "math_sdp_enabled mem_efficient_sdp_enabled sdp_kernel"
            ),
        ),
        Gap(
            "the per-device autocast getters and setters: torch.autocast('npu') and "
            "torch.get_autocast_dtype('npu') are emulated",
            _names(
                "autocast_utils get_autocast_dtype is_autocast_enabled set_autocast_dtype "
                "set_autocast_enabled"
            ),
        ),
        Gap(
            "model obfuscation of the Ascend inference stack",
            _names("obfuscation_calculate obfuscation_finalize obfuscation_initialize"),
        ),
        Gap(
            "internal helpers (get_default_generator: use torch.npu.default_generators)",
            _names("classproperty get_default_generator utils"),
        ),
    ),
    "torch_npu.npu.amp": (
        Gap(
            "the modules that define torch.npu.amp's names; the names are provided at "
            "torch.npu.amp (amp.py), and ShardedGradScaler (FSDP) is not",
            _names("autocast_mode common grad_scaler sharded_grad_scaler"),
        ),
    ),
    "torch_npu.contrib": (
        Gap(
            "NPU-tuned layers of torch_npu.contrib.module: no CPU reference written here",
            _names(
                """
                BiLSTM ChannelShuffle DCNv2 FastBatchNorm1d FastBatchNorm2d FastBatchNorm3d
                FastSyncBatchNorm Focus FusedColorJitter LabelSmoothingCrossEntropy
                LinearA8W8Quant LinearQuant LinearWeightQuant Mish ModulatedDeformConv
                MultiheadAttention NpuCachedDropout NpuDropPath NpuFairseqDropout PSROIPool
                Prefetcher ROIAlign SiLU Swish function module
                """
            ),
        ),
        Gap(
            "box and detection operators of torch_npu.contrib.function: no CPU reference "
            "written here",
            _names("fuse_add_softmax_dropout matmul_transpose roll"),
            pattern=r"npu_\w+",
        ),
    ),
}

#: The module name code uses -> the module the data records it under.
_DATA_MODULE = {"torch.npu": "torch_npu.npu", "torch.npu.amp": "torch_npu.npu.amp"}


def data_module(module: str) -> str:
    return _DATA_MODULE.get(module, module)


def gap(module: str, name: str) -> Gap | None:
    """The gap that leaves ``module.name`` out, if one does."""
    return next((g for g in GAPS.get(data_module(module), ()) if g.covers(name)), None)


def missing(module: str, name: str) -> NoReturn:
    """What a module ``__getattr__`` of the emulated torch_npu raises for ``name``.

    The host's answer for a name its release lacks (``AttributeError``); for a name it has,
    :class:`~npu_emulator.errors.NotEmulatedError` with the gap's reason.
    """
    if name.startswith("__"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    known = releases.public_names(data_module(module))
    if known is None:
        not_emulated(f"{module}.{name}")
    if name in known:
        found = gap(module, name)
        if found is not None:
            not_emulated(f"{module}.{name}", found.reason)
        # Provided yet unbound: a submodule that nothing has imported (transfer_to_npu).
        raise AttributeError(
            f"module {module!r} has no attribute {name!r} (import {module}.{name} first)"
        )
    release = releases.current()
    others = releases.releases_with(data_module(module), name)
    elsewhere = f"; torch-npu {', '.join(others)} has it" if others else ""
    raise AttributeError(
        f"module {module!r} has no attribute {name!r} "
        f"(npu emulator: torch-npu {release} has no {module}.{name}{elsewhere})"
    )
