def build(triton):
    # A parameter named triton: not the package.
    @triton.jit
    def kernel():
        pass

    return kernel
