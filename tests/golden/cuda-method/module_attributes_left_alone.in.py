import torch


def info(x):
    torch.cuda.synchronize()
    on_gpu = x.is_cuda
    version = torch.version.cuda
    method = torch.Tensor.cuda
    return on_gpu, version, method
