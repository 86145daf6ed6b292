import lightning as L
from pytorch_lightning import Trainer

trainer = L.Trainer(accelerator="gpu", devices=8, strategy="ddp_find_unused_parameters_true")
fabric = L.Fabric(accelerator="cuda", strategy="fsdp")
old = Trainer(accelerator="gpu")
