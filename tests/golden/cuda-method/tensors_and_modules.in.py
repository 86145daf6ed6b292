import torch


def prepare(model, batch, local_rank):
    model = model.cuda(local_rank)
    images = batch["images"].cuda(non_blocking=True)
    labels = [t.cuda() for t in batch["labels"]]
    restore = torch.load("ckpt.pt", map_location=lambda storage, loc: storage.cuda(0))
    return model.cuda().eval(), images, labels, restore
