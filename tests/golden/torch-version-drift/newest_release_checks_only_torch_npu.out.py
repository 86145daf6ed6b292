import torch

# torch-npu 2.14.0 is built for torch 2.14, which the data does not describe.
index = torch.accelerator.device_index()
torch.npu.not_a_torch_npu_name()
