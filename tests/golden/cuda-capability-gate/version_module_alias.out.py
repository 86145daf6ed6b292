import torch.version as tv


def cuda_build():
    return tv.cuda


def cuda_major():
    return int(tv.cuda.split(".")[0])
