import torch
import torch.distributed as dist


def save_a(accelerator, model, path):
    weights = accelerator.get_state_dict(model)
    if dist.get_rank() == 0:
        torch.save(weights, path)


def save_b(accelerator, model, path, is_main_process):
    weights = accelerator.get_state_dict(model)
    if is_main_process():
        torch.save(weights, path)


def save_c(accelerator, model, path):
    weights = accelerator.get_state_dict(model)
    if 0 == accelerator.process_index:
        torch.save(weights, path)
