import torch as th

scaler = th.cuda.amp.GradScaler(2.0**16, 2.0, 0.5, 2000, use_fp16)
multi = th.cuda.amp.GradScaler(
    init_scale=1024,
    enabled=use_fp16,
)
empty = th.cuda.amp.GradScaler()


def build() -> th.cuda.amp.GradScaler:
    return th.cuda.amp.GradScaler
