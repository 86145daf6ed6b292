import torch


class Evaluator:
    def score(self, batch, cached):
        with torch.autocast("npu", dtype=torch.bfloat16):
            logits = self.model(batch)
        probs = logits.float().softmax(-1)
        # Not traced (a parameter, an attribute): reported, not changed.
        return probs.cpu().numpy(), cached.cpu().numpy(), self.last.detach().cpu().numpy()
