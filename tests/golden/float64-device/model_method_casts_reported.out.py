import torch
from mmdet3d.models import CenterPoint
from torch import nn


class Detector(CenterPoint):
    def prepare_inputs(self, inputs):
        sensor2egos, ego2globals = inputs
        key2global = ego2globals[:, 0, ...].unsqueeze(1)
        global2key = torch.inverse(key2global.double())
        sensor2key = global2key @ ego2globals.double() @ sensor2egos.double()
        return sensor2key.float()


class Head(nn.Module):
    def forward(self, x):
        return x.double().sum()


class TwoStage(Detector):
    def refine(self, boxes):
        return boxes.to(torch.float64)
