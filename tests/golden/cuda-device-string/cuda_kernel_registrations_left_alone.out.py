import torch
from torch.library import Library, custom_op, impl, register_kernel

lib = Library("mylib", "FRAGMENT")


@custom_op("mylib::fused_rms", mutates_args=(), device_types="cuda")
def fused_rms(x: torch.Tensor) -> torch.Tensor:
    return x


@torch.library.impl("mylib::gelu", "cuda")
def gelu_cuda(x):
    return x


@fused_rms.register_kernel("cuda")
def _(x):
    return x


register_kernel("mylib::gelu", "cuda")(gelu_cuda)
torch.library.impl(lib, "scale", "CUDA")(gelu_cuda)
lib.impl("scale", gelu_cuda, "CUDA")
y = torch.zeros(3, device="npu")

_custom_op = torch.library.custom_op


@_custom_op("mylib::attn_forward", mutates_args=(), device_types="cuda")
def attn_forward(q: torch.Tensor) -> torch.Tensor:
    return q
