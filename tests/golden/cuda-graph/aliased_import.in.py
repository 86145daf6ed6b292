import torch.cuda as tc
from torch.cuda import make_graphed_callables as graphed

model = graphed(model, (sample,))
graph = tc.CUDAGraph()
with tc.graph(graph):
    out = model(sample)
