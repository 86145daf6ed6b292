from typing import Optional

import torch


class Trainer:
    scaler: Optional[torch.amp.GradScaler] = None

    def setup(self, use_fp16):
        self.scaler = torch.amp.GradScaler("npu", enabled=use_fp16, init_scale=2.0**14)
