import torch


class Policy(torch.nn.Module):
    @torch.no_grad()
    def predict(self, batch):
        features = self.backbone(batch)
        return self.head(features)

    def evaluate(self, loader):
        scores = []
        with torch.no_grad():
            for batch in loader:
                scores.append(self.predict(batch))
        return scores


@torch.no_grad
def embed(model, tokens):
    return model.embed(tokens)
