from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension, load, load_inline

print("building ops.cu is not needed")
setup(name="ops", ext_modules=[CppExtension("ops", ["ops.cpp"])], cmdclass={"build_ext": BuildExtension})
jit = load("jit_ops", sources=["jit.cpp"])
inline = load_inline("inline_ops", cpp_sources=[CPP], cuda_sources=None, functions=["scale"])
from_list = load("listed", sources=SOURCES)
