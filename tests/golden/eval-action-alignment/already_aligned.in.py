import numpy as np


def eval_action_model(model, batch):
    pred = model.predict(batch)
    actions = np.array([b["action"] for b in batch])[:, -pred.shape[1]:]
    action_mask = np.array([b["action_mask"] for b in batch])
    action_mask = action_mask[:, -pred.shape[1]:]
    err = (pred - actions) * action_mask
    return (err**2).sum()
