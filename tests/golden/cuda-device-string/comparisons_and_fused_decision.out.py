import torch


def make_optimizer(params, device_type, available):
    use_fused = available and device_type in ("cuda", "npu")
    return torch.optim.AdamW(params, fused=use_fused)


def seed(device, x, seed):
    if x.device.type in ("cuda", "npu"):
        torch.cuda.manual_seed(seed)
    if "npu" in str(device):
        pass
    if str(device).startswith("npu"):
        pass
    if device in ("cuda", "npu", "mps"):
        pass
    if device not in ["cuda", "npu"]:
        pass
    if args.device not in ("cuda:0", "npu:0"):
        pass
    if mode == "cuda":
        pass
