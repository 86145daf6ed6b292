import torch

ready = True; \
    region = torch.autocast("npu")


class Model:
    flag = 1; \
        region = torch.autocast("npu")
