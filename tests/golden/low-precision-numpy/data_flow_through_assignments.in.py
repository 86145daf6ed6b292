import numpy as np
import torch


def rollout(model, obs, steps):
    history = np.zeros(steps)
    with torch.autocast("npu", dtype=torch.bfloat16):
        out = model(obs)
    first = out.hidden[0]
    scaled = first * 2 + 1
    picked = scaled[:, -1]
    best = picked.argmax(-1)
    positive = picked > 0
    upcast = picked.float()
    counts = torch.from_numpy(history)
    for _ in range(steps):
        state = model.step(picked)
    if steps > 1:
        maybe = picked
    else:
        maybe = upcast
    return (
        picked.detach().cpu().numpy(),
        best.cpu().numpy(),
        positive.cpu().numpy(),
        upcast.cpu().numpy(),
        counts.cpu().numpy(),
        state.cpu().numpy(),
        maybe.cpu().numpy(),
    )


def unrelated(batch):
    # No low precision here: nothing to change, nothing to report.
    return batch.cpu().numpy()
