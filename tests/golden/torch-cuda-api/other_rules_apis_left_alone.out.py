import torch


def step(model, x):
    with torch.cuda.amp.autocast():
        y = model(x)
    scaler = torch.cuda.amp.GradScaler()
    torch.cuda.nvtx.range_push("step")
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        pass
    fn = torch.cuda.make_graphed_callables(model, (x,))
    return y, scaler, fn
