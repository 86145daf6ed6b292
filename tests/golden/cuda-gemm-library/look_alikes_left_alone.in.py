import torch


def grouped_gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.bmm(a, b)


try:
    from grouped_gemm import backend
except ImportError:
    backend = None

print("pip install grouped_gemm for faster MoE layers")
out = grouped_gemm(torch.ones(2, 3, 4), torch.ones(2, 4, 5))
