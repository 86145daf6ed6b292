import glob
import os
from pathlib import Path

import torch


def find_nccl() -> str:
    site = os.path.dirname(os.path.dirname(torch.__file__))
    nccl_dir = os.path.join(site, "nvidia", "nccl")
    so_files = glob.glob(os.path.join(nccl_dir, "lib", "libnccl.so*"))
    return so_files[0]


def cudart_present() -> bool:
    return os.path.exists("/usr/local/cuda/lib64/libcudart.so.12")


CUBLAS = Path("/usr/local/cuda/lib64/libcublas.so")
