from setuptools import setup
from torch_npu.utils.cpp_extension import NpuExtension
from torch.utils.cpp_extension import BuildExtension

setup(name="ops", ext_modules=[NpuExtension("ops", ["ops.cpp"])], cmdclass={"build_ext": BuildExtension})
