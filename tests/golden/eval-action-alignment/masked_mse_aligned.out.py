import numpy as np


class Trainer:
    def eval_action_model(self, step_metrics=None):
        """Compare predicted and ground-truth actions on one batch."""
        examples = self._get_next_batch()
        actions = [example["action"] for example in examples]
        action_mask = [example["action_mask"] for example in examples]
        output_dict = self.model.predict_action(examples=examples)

        if self.accelerator.is_main_process:
            normalized_actions = output_dict["normalized_actions"]  # B, T, D
            actions = np.array(actions)
            action_mask = np.array(action_mask)
            actions = actions[:, -normalized_actions.shape[1]:]
            action_mask = action_mask[:, -normalized_actions.shape[1]:]
            # only valid dimensions count
            masked_diff = (normalized_actions - actions) * action_mask
            step_metrics["mse_score"] = (masked_diff**2).sum() / action_mask.sum()
        return step_metrics
