import torch as th
from torch.backends import cudnn
import torch.backends.cuda as backends_cuda


def configure():
    th.backends.cuda.matmul.allow_tf32 = False
    cudnn.allow_tf32 = False
    backends_cuda.matmul.allow_tf32 = True
