import os

import torch
from torch.utils.cpp_extension import CppExtension, CUDAExtension


def make_ext(name, sources, sources_cuda):
    macros = []
    if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
        macros += [("WITH_CUDA", None)]
        extension = CUDAExtension
        sources += sources_cuda
    else:
        extension = CppExtension
    return extension(name=name, sources=sources, define_macros=macros)


objects = []
if torch.cuda.is_available():
    objects += ["src/cuda/im2col_cuda.cu.o"]
