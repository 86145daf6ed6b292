import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint import FileSystemWriter


def save(model, optimizer, path):
    state = {"model": model.state_dict(), "optim": optimizer.state_dict()}
    dcp.save(state, checkpoint_id=path)
    dcp.save(state, storage_writer=FileSystemWriter(path))
