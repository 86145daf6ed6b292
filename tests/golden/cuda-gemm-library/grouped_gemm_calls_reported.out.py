import deep_gemm
import torch

try:
    from grouped_gemm import backend
except ImportError:
    backend = None


def grouped(a: torch.Tensor, b: torch.Tensor, sizes: torch.Tensor) -> torch.Tensor:
    assert backend is not None, "grouped_gemm is not available."
    return backend.gmm(a, b, sizes, False)


def fp8(lhs: tuple[torch.Tensor, torch.Tensor], rhs: tuple[torch.Tensor, torch.Tensor], out: torch.Tensor, layout: torch.Tensor) -> None:
    deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous(lhs, rhs, out, layout)
