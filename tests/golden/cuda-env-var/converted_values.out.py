import os

os.environ["HCCL_CONNECT_TIMEOUT"] = "30"
os.environ.setdefault("HCCL_CONNECT_TIMEOUT", "2")
os.environ["HCCL_CONNECT_TIMEOUT"] = str(timeout_ms)
os.environ["HCCL_BUFFSIZE"] = "8"
timeout = int(os.environ.get("NCCL_SOCKET_TIMEOUT_MS", "30000"))
