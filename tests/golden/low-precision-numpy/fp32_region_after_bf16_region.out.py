import numpy as np
import torch


class ActionPolicy(torch.nn.Module):
    @torch.no_grad()
    def predict(self, observations, proprio=None):
        tokens = self.encoder.prepare(observations)
        with torch.autocast("npu", dtype=torch.bfloat16):
            encoded = self.encoder(**tokens)
            features = encoded.layers[-1]

        if proprio is not None:
            proprio = torch.from_numpy(np.asarray(proprio)).to(features.device, dtype=features.dtype)

        # The head wants fp32; on the NPU this region may be switched off.
        with torch.autocast("npu", dtype=torch.float32):
            actions = self.head.sample(features, proprio)

        return {"actions": actions.detach().float().cpu().numpy()}
