"""A small trainer in the shape of DiT4DiT's (fixture for npu-migrator's profile test)."""

# Added by the migration (entry-point-setup): the npu runtime and its safety net load
# before anything builds a device, an accelerator or a process group; where they
# cannot, the script stops here and says what to do. The mx_driving patcher is
# optional: without mx_driving the script runs unpatched.
try:
    import torch_npu  # noqa: F401
    import torch_npu.contrib.transfer_to_npu  # noqa: F401
except (ImportError, RuntimeError, OSError) as error:
    raise ImportError(
        "torch_npu did not load: source CANN's set_env.sh first "
        "(/usr/local/Ascend/ascend-toolkit/set_env.sh, or "
        "~/Ascend/ascend-toolkit/set_env.sh for a per-user install), and install "
        "the torch-npu release that matches the installed torch (this migration "
        "targeted torch-npu 2.7.1.post11, for torch 2.7.1)"
    ) from error
try:
    from mx_driving.patcher import default_patcher_builder
except ModuleNotFoundError as error:
    if error.name != "mx_driving":
        raise
    default_patcher_builder = None
# End of the migration's set-up.

import argparse
import json
import os

import numpy as np
import torch
import torch.distributed as dist
from accelerate import Accelerator, DeepSpeedPlugin
from omegaconf import OmegaConf

from DiT4DiT.model.framework import build_framework

# Built at import time, before main() runs.
deepspeed_plugin = DeepSpeedPlugin()
accelerator = Accelerator(deepspeed_plugin=deepspeed_plugin)


def setup_optimizer_and_scheduler(model, cfg):
    """AdamW over every trainable parameter, constant schedule."""
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=cfg.trainer.lr, betas=(0.9, 0.95), fused=True)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    return optimizer, scheduler


class VLATrainer:
    def __init__(self, cfg, model, dataloader, optimizer, scheduler, accelerator):
        self.config = cfg
        self.model = model
        self.dataloader = dataloader
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.accelerator = accelerator
        self.completed_steps = 0
        self.checkpoint_dir = os.path.join(cfg.output_dir, "checkpoints")

    def _get_next_batch(self):
        return next(iter(self.dataloader))

    def _train_step(self, batch):
        """One optimisation step under bf16 autocast."""
        with self.accelerator.accumulate(self.model):
            with torch.autocast("npu", dtype=torch.bfloat16):
                output = self.model.forward(batch)
                loss = output["action_loss"]
                self.accelerator.backward(loss)
            if self.accelerator.sync_gradients:
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad(set_to_none=True)
        return {"loss": loss.item()}

    def eval_action_model(self, step_metrics):
        """Masked MSE between predicted and ground-truth actions on one batch."""
        examples = self._get_next_batch()
        actions = [example["action"] for example in examples]
        action_mask = [example["action_mask"] for example in examples]
        output = self.model.predict_action(examples=examples)

        if self.accelerator.is_main_process:
            normalized_actions = output["normalized_actions"]  # B, T, D
            actions = np.array(actions)
            action_mask = np.array(action_mask)
            actions = actions[:, -normalized_actions.shape[1]:]
            action_mask = action_mask[:, -normalized_actions.shape[1]:]
            # only the valid dimensions count
            masked_diff = (normalized_actions - actions) * action_mask
            step_metrics["mse_score"] = (masked_diff**2).sum() / action_mask.sum()

        dist.barrier()
        return step_metrics

    def _save_checkpoint(self):
        """Save the weights of this step and a summary line."""
        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            path = os.path.join(self.checkpoint_dir, f"steps_{self.completed_steps}")
            # model weights
            torch.save(state_dict, path + "_pytorch_model.pt")
            with open(os.path.join(self.config.output_dir, "summary.jsonl"), "a") as f:
                f.write(json.dumps({"steps": self.completed_steps}) + "\n")
            self.accelerator.print(f"Checkpoint saved at {path}")

        self.accelerator.wait_for_everyone()

    def _finalize_training(self):
        """Save the final weights."""
        # final model
        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            final_dir = os.path.join(self.config.output_dir, "final_model")
            os.makedirs(final_dir, exist_ok=True)
            torch.save(state_dict, os.path.join(final_dir, "pytorch_model.pt"))

        self.accelerator.wait_for_everyone()

    def train(self):
        while self.completed_steps < self.config.trainer.max_train_steps:
            metrics = self._train_step(self._get_next_batch())
            self.completed_steps += 1
            if self.completed_steps % self.config.trainer.eval_interval == 0:
                metrics = self.eval_action_model(metrics)
            if self.completed_steps % self.config.trainer.save_interval == 0:
                self._save_checkpoint()
        self._finalize_training()


def main(cfg):
    model = build_framework(cfg)
    optimizer, scheduler = setup_optimizer_and_scheduler(model, cfg)
    model, optimizer = accelerator.prepare(model, optimizer)
    trainer = VLATrainer(cfg, model, [], optimizer, scheduler, accelerator)
    trainer.train()
    dist.destroy_process_group()


if __name__ == "__main__":
    # Added by the migration (entry-point-setup): apply the mx_driving patches first, as
    # entering `with default_patcher_builder.build():` does (its exit undoes nothing).
    if default_patcher_builder is not None:
        default_patcher_builder.build().__enter__()
    parser = argparse.ArgumentParser()
    parser.add_argument("--config_yaml", type=str, default="config.yaml")
    args, rest = parser.parse_known_args()
    main(OmegaConf.merge(OmegaConf.load(args.config_yaml), OmegaConf.from_dotlist(rest)))
