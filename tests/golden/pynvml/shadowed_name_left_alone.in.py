import pynvml


def query(pynvml):
    return pynvml.nvmlInit()
