import ctypes
import ctypes.util
from ctypes import CDLL, cdll

cudart = ctypes.CDLL("libcudart.so")
nvtx = cdll.LoadLibrary("libnvToolsExt.so.1")
nccl = CDLL("libnccl.so.2", mode=ctypes.RTLD_GLOBAL)
path = ctypes.util.find_library("cudart")
