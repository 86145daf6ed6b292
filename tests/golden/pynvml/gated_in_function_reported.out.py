def gpu_memory():
    try:
        import pynvml
    except ImportError:
        pynvml = None
    if pynvml is None:
        return None
    pynvml.nvmlInit()
    handle = pynvml.nvmlDeviceGetHandleByIndex(0)
    return pynvml.nvmlDeviceGetMemoryInfo(handle).used
