import torch as th
from torch.backends import cudnn
import torch.backends.cuda as backends_cuda


def configure():
    th.npu.matmul.allow_hf32 = False
    th.npu.conv.allow_hf32 = False
    th.npu.matmul.allow_hf32 = True
