import torch
from torch import nn


class Policy(nn.Module):
    def forward(self, obs):
        with torch.autocast("npu", dtype=torch.bfloat16):
            hidden = self.backbone(obs)
        return self.head(hidden)

    def encode(self, obs):
        return self.backbone(obs.bfloat16())

    def tokens(self, text):
        return self.tokenizer(text)

    @torch.no_grad()
    def predict(self, obs):
        actions = self(obs)
        return actions.detach().float().cpu().numpy()

    def embed(self, obs):
        return self.encode(obs).float().cpu().numpy()

    def token_ids(self, text):
        return self.tokens(text).cpu().numpy()


class Plain(nn.Module):
    def predict(self, obs):
        return self(obs).detach().cpu().numpy()
