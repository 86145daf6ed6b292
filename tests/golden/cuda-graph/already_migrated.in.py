import torch
import torch_npu


def capture(model, static_input):
    graph = torch.npu.NPUGraph()
    with torch.npu.graph(graph):
        static_output = model(static_input)
    return static_output
