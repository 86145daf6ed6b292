import torch as th

scaler = th.amp.GradScaler("npu", 2.0**16, 2.0, 0.5, 2000, use_fp16)
multi = th.amp.GradScaler(
    "npu",
    init_scale=1024,
    enabled=use_fp16,
)
empty = th.amp.GradScaler("npu")


def build() -> th.amp.GradScaler:
    return th.amp.GradScaler
