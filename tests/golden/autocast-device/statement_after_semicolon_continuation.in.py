import torch

ready = True; \
    region = torch.autocast("cuda")


class Model:
    flag = 1; \
        region = torch.autocast("cuda")
