from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension, load, load_inline

setup(
    name="ops",
    ext_modules=[CUDAExtension("ops", ["csrc/ops.cpp", "csrc/ops_kernel.cu"])],
    cmdclass={"build_ext": BuildExtension},
)

jit = load("jit_ops", sources=["csrc/jit.cpp", "csrc/jit_kernel.cu"])
inline = load_inline("inline_ops", cpp_sources=[CPP], cuda_sources=[CUDA], functions=["scale"])
