import torch
from torch.utils import cpp_extension

ext_modules = []
if torch.cuda.is_available() and torch.version.cuda is not None:
    ext_modules.append(
        cpp_extension.CUDAExtension("fused_ops", ["csrc/fused.cpp", "csrc/fused_kernel.cu"])
    )

if torch.cuda.is_available():
    from .cuda_kernels import fused_layer_norm
else:
    fused_layer_norm = None

# Only install pynvml on nvidia gpus
if torch.cuda.is_available():
    install_requires.append("pynvml")

if torch.npu.is_available():
    torch.npu.set_device(0)
