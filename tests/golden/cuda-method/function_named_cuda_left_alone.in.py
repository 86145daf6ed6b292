from numba import cuda


def cuda_kernel_launch(data):
    device = cuda.get_current_device()
    arr = cuda.to_device(data)
    return device, arr
