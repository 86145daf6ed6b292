import torch as th
from transformers.utils import is_torch_npu_available as npu_ok


def synchronize():
    if npu_ok():
        th.npu.synchronize()
    else:
        th.cuda.synchronize()


def empty_cache():
    if th.npu.is_available():
        th.npu.empty_cache()
    elif th.cuda.is_available():
        th.cuda.empty_cache()


def seed(n):
    if hasattr(th, "npu"):
        th.npu.manual_seed(n)
    else:
        th.cuda.manual_seed(n)


def plain(n):
    if th.npu.is_available():
        th.npu.manual_seed(n)
