import torch
import torch.distributed as dist


class SmoothedValue:
    def synchronize_between_processes(self):
        t = torch.tensor([self.count, self.total], dtype=torch.float64, device="cuda")
        dist.barrier()
        dist.all_reduce(t)
        t = t.tolist()
        self.count = int(t[0])
        self.total = t[1]


def reduce_loss(loss, world_size):
    total = loss.detach().double()
    dist.all_reduce(total.cuda())
    return total / world_size
