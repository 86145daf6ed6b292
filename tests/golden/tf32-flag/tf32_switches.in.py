import torch


def configure(args):
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    torch.backends.cudnn.allow_tf32 = True
    if torch.backends.cuda.matmul.allow_tf32:
        print("TF32 matmul on")
