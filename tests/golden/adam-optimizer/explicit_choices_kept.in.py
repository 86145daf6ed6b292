import torch


def build(params, cfg, use_fused, **optimizer_kwargs):
    kept_off = torch.optim.AdamW(params, lr=1e-4, fused=False)
    chosen = torch.optim.AdamW(params, lr=1e-4, fused=use_fused)
    multi_tensor = torch.optim.AdamW(params, lr=1e-4, foreach=True)
    meta = torch.optim.Adam(params, differentiable=True)
    forwarded = torch.optim.AdamW(params, **optimizer_kwargs)
    return kept_off, chosen, multi_tensor, meta, forwarded
