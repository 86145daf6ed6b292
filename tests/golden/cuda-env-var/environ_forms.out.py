import os


def setup(gpus):
    os.environ["ASCEND_RT_VISIBLE_DEVICES"] = ",".join(gpus)
    visible = os.environ.get("ASCEND_RT_VISIBLE_DEVICES", "")
    os.environ.setdefault("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True")
    blocking = os.getenv("ASCEND_LAUNCH_BLOCKING")
    os.putenv("HCCL_SOCKET_IFNAME", "eth0")
    if "ASCEND_RT_VISIBLE_DEVICES" in os.environ:
        del os.environ["ASCEND_RT_VISIBLE_DEVICES"]
    os.environ.pop("HCCL_ASYNC_ERROR_HANDLING", None)
    os.environ.update({"HCCL_SOCKET_IFNAME": "ib0"})
    os.environ.update(ASCEND_RT_VISIBLE_DEVICES="0")
    return visible, blocking
