import torch
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

if __name__ == "__main__":
    print(torch.cuda.is_available(), BuildExtension, CUDAExtension)
