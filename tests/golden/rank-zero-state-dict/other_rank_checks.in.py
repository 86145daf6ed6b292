import torch
import torch.distributed as dist


def save_a(accelerator, model, path):
    if dist.get_rank() == 0:
        weights = accelerator.get_state_dict(model)
        torch.save(weights, path)


def save_b(accelerator, model, path, is_main_process):
    if is_main_process():
        weights = accelerator.get_state_dict(model)
        torch.save(weights, path)


def save_c(accelerator, model, path):
    if 0 == accelerator.process_index:
        weights = accelerator.get_state_dict(model)
        torch.save(weights, path)
