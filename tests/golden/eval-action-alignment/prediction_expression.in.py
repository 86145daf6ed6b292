import torch


def eval_action_model(output, batch):
    actions = torch.stack([b["action"] for b in batch])
    action_mask = torch.stack([b["action_mask"] for b in batch]).float()
    diff = (output["actions"] - actions) * action_mask
    scaled = ((output["actions"] * 2) - actions) * action_mask
    return diff, scaled
