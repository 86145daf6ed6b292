import torch
import torch_npu


class Accelerator:
    def device_index(self):
        return 0


accelerator = Accelerator()
accelerator.device_index()
count = torch.accelerator.device_count()
torch.cuda._lazy_init()
torch.backends.cudnn.benchmark = True
free, total = torch.cuda.memory.mem_get_info()
torch.npu.random.manual_seed(0)
torch_npu.npu_apply_adam_w
log = "torch.accelerator.device_index() needs torch 2.8"
torch.distributed.new_subgroups_by_enumeration


def f(torch):
    return torch.accelerator.device_index()
