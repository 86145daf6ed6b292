"""Replay a dataset through a trained policy and plot the actions (fixture)."""

from dataclasses import dataclass

import torch


@dataclass
class EvalConfig:
    model_path: str = ""
    device: str = "npu"


def load_model(model_path: str, device: str = "npu"):
    return torch.load(model_path, map_location=device)


def run_step(model, obs, device: str = "npu"):
    with torch.no_grad():
        return model.predict_action([obs])
