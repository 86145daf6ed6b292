import cupy


def run(cupy, source):
    return cupy.RawKernel(source, "scale")
