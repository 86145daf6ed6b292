import torch.optim as optim

sgd = optim.SGD(params, lr=0.1)
adam = optim.Adam(params, lr=1e-3)
