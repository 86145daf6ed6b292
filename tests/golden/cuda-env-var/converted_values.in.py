import os

os.environ["NCCL_SOCKET_TIMEOUT_MS"] = "30000"
os.environ.setdefault("NCCL_SOCKET_TIMEOUT_MS", "1500")
os.environ["NCCL_SOCKET_TIMEOUT_MS"] = str(timeout_ms)
os.environ["NCCL_BUFFSIZE"] = "8388608"
timeout = int(os.environ.get("NCCL_SOCKET_TIMEOUT_MS", "30000"))
