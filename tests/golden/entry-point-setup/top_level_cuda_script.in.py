import torch

model = torch.nn.Linear(4, 4).cuda()
print(model(torch.ones(1, 4, device="cuda")))
