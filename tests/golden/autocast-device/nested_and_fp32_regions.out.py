import torch


class Policy(torch.nn.Module):
    def forward(self, x):
        with torch.autocast("npu", dtype=torch.bfloat16):
            hidden = self.backbone(x)
            with torch.autocast("npu", dtype=torch.float32):
                actions = self.head(hidden)
        return actions
