import torch
import torch_npu

torch.npu.config.allow_internal_format = False


def train_step(model, optimizer, batch):
    loss = model(batch).sum()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    train_step(torch.nn.Linear(4, 4), None, torch.ones(4))
