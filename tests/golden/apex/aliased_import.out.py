import apex.optimizers as fused
from apex.normalization import FusedRMSNorm as RMSNorm

optimizer = fused.FusedLAMB(params, lr=1e-3)
norm = RMSNorm(512)
