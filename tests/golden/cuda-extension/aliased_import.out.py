import torch.utils.cpp_extension as ext

ops = ext.load("ops", ["ops.cpp"], with_cuda=True)
module = ext.CUDAExtension(name="kernels", sources=["kernels.cu"])
