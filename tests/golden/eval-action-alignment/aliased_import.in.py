import numpy as xp
from numpy import asarray as arr


def eval_action_model(model, batch):
    pred = model.predict(batch)
    gt = xp.stack([b["action"] for b in batch])
    mask = arr([b["action_mask"] for b in batch])
    err = mask * (pred - gt)
    return (err**2).sum() / mask.sum()
