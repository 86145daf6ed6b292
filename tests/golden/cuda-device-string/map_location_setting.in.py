import torch


class Handler:
    def __init__(self):
        self.map_location = "cuda" if torch.cuda.is_available() else "cpu"
