import os
import subprocess

import pynvml


def free_memory(index):
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(index)
    return pynvml.nvmlDeviceGetMemoryInfo(handle).free


def gpus():
    out = subprocess.check_output(["nvidia-smi", "--query-gpu=name", "--format=csv"])
    os.system("nvidia-smi -L")
    return out
