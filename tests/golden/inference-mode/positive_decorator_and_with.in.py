import torch


class Policy(torch.nn.Module):
    @torch.inference_mode()
    def predict(self, batch):
        features = self.backbone(batch)
        return self.head(features)

    def evaluate(self, loader):
        scores = []
        with torch.inference_mode():
            for batch in loader:
                scores.append(self.predict(batch))
        return scores


@torch.inference_mode
def embed(model, tokens):
    return model.embed(tokens)
