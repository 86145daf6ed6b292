import torch


def prepare(model, batch, local_rank):
    model = model.npu(local_rank)
    images = batch["images"].npu(non_blocking=True)
    labels = [t.npu() for t in batch["labels"]]
    restore = torch.load("ckpt.pt", map_location=lambda storage, loc: storage.npu(0))
    return model.npu().eval(), images, labels, restore
