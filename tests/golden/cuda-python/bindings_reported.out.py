from cuda import cuda, cudart


def free_memory():
    err, free, total = cudart.cudaMemGetInfo()
    return free


def init():
    (err,) = cuda.cuInit(0)
