import torch


def make_optimizer(params, device_type, available):
    use_fused = available and device_type == "cuda"
    return torch.optim.AdamW(params, fused=use_fused)


def seed(device, x, seed):
    if x.device.type == "cuda":
        torch.cuda.manual_seed(seed)
    if "cuda" in str(device):
        pass
    if str(device).startswith("cuda"):
        pass
    if device in ("cuda", "mps"):
        pass
    if device not in ["cuda", "npu"]:
        pass
    if args.device != "cuda:0":
        pass
    if mode == "cuda":
        pass
