import os


def setup(gpus):
    os.environ["CUDA_VISIBLE_DEVICES"] = ",".join(gpus)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")
    blocking = os.getenv("CUDA_LAUNCH_BLOCKING")
    os.putenv("NCCL_SOCKET_IFNAME", "eth0")
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        del os.environ["CUDA_VISIBLE_DEVICES"]
    os.environ.pop("TORCH_NCCL_ASYNC_ERROR_HANDLING", None)
    os.environ.update({"NCCL_SOCKET_IFNAME": "ib0"})
    os.environ.update(CUDA_VISIBLE_DEVICES="0")
    return visible, blocking
