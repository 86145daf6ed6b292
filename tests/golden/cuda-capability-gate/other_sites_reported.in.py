import torch
import torch.cuda.nccl
from packaging import version

major, minor = torch.cuda.get_device_capability()
is_a100 = torch.cuda.get_device_capability() == (8, 0)
if torch.version.cuda is not None and version.parse(torch.version.cuda) >= version.parse("11.8"):
    pass
print(torch.cuda.nccl.version())
if torch.backends.cuda.is_built():
    pass
