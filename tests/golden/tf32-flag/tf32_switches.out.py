import torch


def configure(args):
    torch.npu.matmul.allow_hf32 = args.tf32
    torch.npu.conv.allow_hf32 = True
    if torch.npu.matmul.allow_hf32:
        print("TF32 matmul on")
