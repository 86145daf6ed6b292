import torch
import torch.distributed.checkpoint as dcp


def load(model, path):
    state = {"model": model.state_dict()}
    dcp.load(state, checkpoint_id=path)
    torch.save(state, path + ".pt")
    accelerator.save_state(path)
