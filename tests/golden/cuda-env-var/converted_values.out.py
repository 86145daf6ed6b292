import os

os.environ["HCCL_BUFFSIZE"] = "4"
os.environ.setdefault("HCCL_BUFFSIZE", "1")
os.environ["HCCL_BUFFSIZE"] = str(buffer_bytes)
os.environ["NCCL_SOCKET_TIMEOUT_MS"] = "30000"
size = int(os.environ.get("NCCL_BUFFSIZE", "4194304"))
