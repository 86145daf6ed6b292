import os

os.environ["NCCL_DEBUG"] = "INFO"
os.environ["NCCL_IB_DISABLE"] = "1"
home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
