import torch


def step(model, batch):
    torch.cuda.nvtx.range_push("forward")
    loss = model(batch)
    torch.cuda.nvtx.range_pop()
    with torch.cuda.nvtx.range("backward"):
        loss.backward()
    torch.cuda.nvtx.mark("step done")
