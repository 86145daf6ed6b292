from typing import Optional

import torch


class Trainer:
    scaler: Optional[torch.cuda.amp.GradScaler] = None

    def setup(self, use_fp16):
        self.scaler = torch.cuda.amp.GradScaler(enabled=use_fp16, init_scale=2.0**14)
