import torch


class Handler:
    def __init__(self):
        self.map_location = "npu" if torch.cuda.is_available() else "cpu"
