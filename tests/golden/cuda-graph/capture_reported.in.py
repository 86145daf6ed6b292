import torch


def capture(model, static_input):
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, pool=torch.cuda.graph_pool_handle()):
        static_output = model(static_input)
    graph.replay()
    return static_output
