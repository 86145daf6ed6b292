import subprocess

import torch


def free_memory():
    subprocess.run(["npu-smi", "info"], check=True)  # was nvidia-smi
    return torch.npu.mem_get_info()[0]
