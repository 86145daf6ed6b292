from typing import Optional

import torch


class Trainer:
    scaler: Optional[torch.npu.amp.GradScaler] = None

    def setup(self, use_fp16):
        self.scaler = torch.npu.amp.GradScaler(enabled=use_fp16, init_scale=2.0**14)
