import json
import os

import torch


class Trainer:
    def _save_checkpoint(self):
        """Write the weights and a summary line."""

        if self.accelerator.is_main_process:

            path = os.path.join(self.checkpoint_dir, f"steps_{self.step}")
            # weights
            state_dict = self.accelerator.get_state_dict(self.model)  # full model
            torch.save(state_dict, path + "_pytorch_model.pt")

            with open(os.path.join(self.output_dir, "summary.jsonl"), "a") as f:
                f.write(json.dumps({"steps": self.step}) + "\n")
            print(f"saved {path}")

        self.accelerator.wait_for_everyone()

    def _finalize_training(self):
        """Save the final weights."""
        # final weights
        if self.accelerator.is_main_process:
            final = os.path.join(self.output_dir, "final_model")
            os.makedirs(final, exist_ok=True)
            state_dict = self.accelerator.get_state_dict(self.model)
            torch.save(state_dict, os.path.join(final, "pytorch_model.pt"))
        else:
            print("waiting for rank 0")

        if self.accelerator.is_main_process:
            print("done")

        self.accelerator.wait_for_everyone()
