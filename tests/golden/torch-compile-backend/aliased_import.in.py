from torch import compile as jit

model = jit(model, dynamic=False)
