import lightning as L
from lightning.pytorch.strategies import DDPStrategy

trainer = L.Trainer(accelerator="auto", strategy=DDPStrategy(process_group_backend="hccl"))
cpu = L.Trainer(accelerator="cpu", strategy="deepspeed_stage_2")


def build(Trainer):
    return Trainer(accelerator="gpu")
