import os

os.environ["NCCL_BUFFSIZE"] = "4194304"
os.environ.setdefault("NCCL_BUFFSIZE", "1500")
os.environ["NCCL_BUFFSIZE"] = str(buffer_bytes)
os.environ["NCCL_SOCKET_TIMEOUT_MS"] = "30000"
size = int(os.environ.get("NCCL_BUFFSIZE", "4194304"))
