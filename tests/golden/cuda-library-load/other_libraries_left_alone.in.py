import ctypes
import ctypes.util

libc = ctypes.CDLL("libc.so.6")
ascend = ctypes.CDLL("libascendcl.so")
lib = ctypes.CDLL(library_path)
found = ctypes.util.find_library("m")
print("libcudart.so not loaded")
