import nvidia_smi as smi
from pynvml import nvmlDeviceGetCount as count

smi.nvmlInit()
n = count()
