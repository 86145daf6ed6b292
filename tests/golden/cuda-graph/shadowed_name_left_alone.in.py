def capture(torch, model):
    graph = torch.cuda.CUDAGraph()
    return graph
