import apex
from apex import amp
from apex.normalization import FusedLayerNorm
from apex.optimizers import FusedAdam


model = build()
norm = FusedLayerNorm(1024)
optimizer = FusedAdam(model.parameters(), lr=1e-4)
model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
model = apex.parallel.DistributedDataParallel(model)


def step(loss):
    with amp.scale_loss(loss, optimizer) as scaled:
        scaled.backward()
