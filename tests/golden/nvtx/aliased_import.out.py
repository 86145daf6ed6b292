import nvtx as markers
from torch.cuda import nvtx as cuda_nvtx


@markers.annotate("train", color="green")
def train():
    cuda_nvtx.range_push("epoch")
    markers.push_range("inner")
