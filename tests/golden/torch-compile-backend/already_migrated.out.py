import torch
import torchair

model = torch.compile(model, backend=torchair.get_npu_backend(), dynamic=False)
