import re

import torch
import torchair

pattern = re.compile(r"cuda:\d+")
npu_backend = torchair.get_npu_backend()
model = torch.compile(model, backend=npu_backend)
debug = torch.compile(model, backend="eager")
forwarded = torch.compile(model, **options)
print("torch.compile(model) is slow to warm up")
