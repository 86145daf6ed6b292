"""The configuration files of a smoke run: DiT4DiT's training YAML, DeepSpeed and accelerate.

The training config follows the shipped robocasa/libero configs key for key, with the RoboTwin
settings that fit 16-step data (``training: joint``, ``future_action_window_size: 15``,
``action_horizon: 16``, 14-dim state and action) and sizes shrunk to the tiny pipeline. It is
sized so that one run of ``max_train_steps`` optimizer steps also runs one evaluation
(``predict_action`` and the MSE score) and saves one checkpoint before the final model.

Precision decides what the run proves. ``bf16`` is what real training uses (bf16 backbone
weights and DeepSpeed bf16): on a host without CUDA the unmigrated trainer fails there,
because its ``"cuda"`` autocast regions are inactive. ``fp32`` runs even unmigrated code and
only shows that the data and model plumbing work.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from target_dit4dit.smoke.dataset import STATE_ACTION_DIM, TinyDataset
from target_dit4dit.smoke.pipeline import TinyCosmosSpec

Precision = Literal["fp32", "bf16"]
PRECISIONS: tuple[Precision, ...] = ("fp32", "bf16")
ZERO_STAGES = (2, 3)

# The modules the shipped run scripts freeze with --trainer.freeze_modules.
FREEZE_MODULES = "backbone_interface.extractor.text_encoder,backbone_interface.extractor.vae"
# 1 conditioning frame + 4 future frames: the fewest that give the Wan VAE (temporal factor 4)
# a future latent to supervise, so the video flow-matching loss is really computed.
VIDEO_DELTA_INDICES = [0, 1, 2, 3, 4]
ACTION_CHUNK = 16
RUN_ID = "smoke"


def train_config(
    *,
    pipeline: Path,
    dataset: TinyDataset,
    run_root: Path,
    precision: Precision = "bf16",
    max_train_steps: int = 2,
    spec: TinyCosmosSpec | None = None,
) -> dict[str, Any]:
    """DiT4DiT's training config for a smoke run, as a plain dict."""
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if max_train_steps < 2:
        raise ValueError("max_train_steps must be at least 2: one step to evaluate and save at")
    spec = spec or TinyCosmosSpec()
    # Evaluate and save at the last step but one, so both happen inside the loop and the
    # final-model save still follows.
    interval = max_train_steps - 1
    return {
        "run_id": RUN_ID,
        "run_root_dir": str(run_root),
        "seed": 42,
        "trackers": ["jsonl", "wandb"],
        "wandb_entity": "smoke",
        "wandb_project": "smoke",
        "is_debug": False,
        "framework": {
            "name": "DiT4DiT",
            "cosmos25": {
                "base_model": str(pipeline),
                "torch_dtype": "bfloat16" if precision == "bf16" else "float32",
                "local_files_only": True,
                "training": "joint",
                "extract_layer": spec.layers - 1,
                "vl_hidden_dim": spec.transformer_hidden,
                "max_sequence_length": 32,
                "future_num_inference_steps": 1,
                "future_loss_type": "flow_matching",
                "flow_matching": {
                    "time_distribution": "logit_normal",
                    "high_sigma_ratio": 0.05,
                    "high_sigma_min": 0.98,
                },
                "conditional_frame_timestep": 0.0001,
            },
            "action_model": {
                "action_model_type": "DiT-B",
                "hidden_size": 64,
                "add_pos_embed": True,
                "max_seq_len": 1024,
                "action_dim": STATE_ACTION_DIM,
                "state_dim": STATE_ACTION_DIM,
                "future_action_window_size": ACTION_CHUNK - 1,
                "action_horizon": ACTION_CHUNK,
                "past_action_window_size": 0,
                "repeated_diffusion_steps": 2,
                "noise_beta_alpha": 1.5,
                "noise_beta_beta": 1.0,
                "noise_s": 0.999,
                "num_timestep_buckets": 1000,
                "num_inference_timesteps": 2,
                "num_target_vision_tokens": 32,
                "diffusion_model_cfg": {
                    "cross_attention_dim": spec.transformer_hidden,
                    "dropout": 0.2,
                    "final_dropout": True,
                    "interleave_self_attention": True,
                    "norm_type": "ada_norm",
                    "num_layers": 2,
                    "output_dim": 64,
                    "positional_embeddings": None,
                },
            },
        },
        "datasets": {
            "vla_data": {
                "dataset_py": "lerobot_datasets",
                "data_root_dir": str(dataset.root),
                "data_mix": dataset.mixture,
                "video_backend": "opencv",
                "include_state": True,
                "action_type": "joint_position",
                "default_image_resolution": [3, 224, 224],
                "per_device_batch_size": 1,
                "load_all_data_for_training": True,
                "obs": ["image_0"],
                "image_size": [224, 224],
                "delete_pause_frame": False,
                "video_delta_indices": VIDEO_DELTA_INDICES,
                "max_state_dim": STATE_ACTION_DIM,
                "max_action_dim": STATE_ACTION_DIM,
                "action_video_freq_ratio": 1,
            }
        },
        "trainer": {
            "epochs": 1,
            "max_train_steps": max_train_steps,
            "num_warmup_steps": 0,
            "save_interval": interval,
            "eval_interval": interval,
            "learning_rate": {
                "base": 1.0e-05,
                "backbone_interface": 1.0e-05,
                "action_model": 1.0e-04,
            },
            "lr_scheduler_type": "cosine_with_min_lr",
            "scheduler_specific_kwargs": {"min_lr": 5.0e-07},
            "freeze_modules": FREEZE_MODULES,
            "repeated_diffusion_steps": 2,
            "max_grad_norm": 1.0,
            "warmup_ratio": 0.1,
            "weight_decay": 0.0,
            "logging_frequency": 1,
            "gradient_clipping": 1.0,
            "gradient_accumulation_steps": 1,
            "optimizer": {
                "name": "AdamW",
                "betas": [0.9, 0.95],
                "eps": 1.0e-08,
                "weight_decay": 1.0e-08,
            },
            "is_resume": False,
            "resume_epoch": None,
            "resume_step": None,
            "enable_gradient_checkpointing": False,
            "enable_mixed_precision_training": precision == "bf16",
        },
    }


def deepspeed_config(zero: int, precision: Precision = "bf16") -> dict[str, Any]:
    """A DeepSpeed config for ZeRO-2 or ZeRO-3 that also runs on CPU (gloo).

    Communication overlap is off (it needs device streams) and buckets are small; bf16 is
    stated outright, never ``"auto"``: an ``"auto"`` that resolves to false is what leaves an
    fp32 action head beside a bf16 backbone under ZeRO-3.
    """
    if zero not in ZERO_STAGES:
        raise ValueError(f"zero must be one of {ZERO_STAGES}, got {zero!r}")
    zero_optimization: dict[str, Any] = {
        "stage": zero,
        "overlap_comm": False,
        "contiguous_gradients": True,
        "reduce_bucket_size": 5e6,
    }
    if zero == 2:
        zero_optimization.update(
            {"allgather_partitions": True, "allgather_bucket_size": 5e6, "reduce_scatter": True}
        )
    else:
        zero_optimization.update(
            {
                "stage3_prefetch_bucket_size": 5e6,
                "stage3_param_persistence_threshold": 1e4,
                "stage3_gather_16bit_weights_on_model_save": True,
            }
        )
    return {
        "fp16": {"enabled": False},
        "bf16": {"enabled": precision == "bf16"},
        "train_micro_batch_size_per_gpu": "auto",
        "train_batch_size": "auto",
        "gradient_accumulation_steps": 1,
        "gradient_clipping": 1.0,
        "zero_optimization": zero_optimization,
        "steps_per_print": 1,
        "wall_clock_breakdown": False,
    }


def accelerate_config(deepspeed_config_file: Path, num_processes: int) -> dict[str, Any]:
    """An accelerate config that hands everything to a DeepSpeed config file.

    It has no ``mixed_precision`` key: accelerate ignores that key next to a
    ``deepspeed_config_file`` and says so on every start.
    """
    if num_processes < 1:
        raise ValueError(f"num_processes must be at least 1, got {num_processes}")
    return {
        "compute_environment": "LOCAL_MACHINE",
        "debug": False,
        "deepspeed_config": {
            "deepspeed_config_file": str(deepspeed_config_file),
            "deepspeed_multinode_launcher": "standard",
            "zero3_init_flag": False,
        },
        "distributed_type": "DEEPSPEED",
        "downcast_bf16": "no",
        "machine_rank": 0,
        "main_training_function": "main",
        "num_machines": 1,
        "num_processes": num_processes,
        "rdzv_backend": "static",
        "same_network": True,
        "tpu_env": [],
        "tpu_use_cluster": False,
        "tpu_use_sudo": False,
        "use_cpu": False,
    }


def write_yaml(path: Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as block-style YAML (both OmegaConf and accelerate read it)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as stream:
        yaml.dump(data, stream)
    return path


def write_json(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path
