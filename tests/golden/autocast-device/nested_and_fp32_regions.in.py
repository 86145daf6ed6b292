import torch


class Policy(torch.nn.Module):
    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            hidden = self.backbone(x)
            with torch.autocast("cuda", dtype=torch.float32):
                actions = self.head(hidden)
        return actions
