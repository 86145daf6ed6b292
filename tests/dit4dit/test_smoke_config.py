from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from target_dit4dit.smoke.config import (
    FREEZE_MODULES,
    accelerate_config,
    deepspeed_config,
    train_config,
    write_yaml,
)
from target_dit4dit.smoke.dataset import TinyDataset
from target_dit4dit.smoke.pipeline import TinyCosmosSpec

DATASET = TinyDataset(
    root=Path("/d"), path=Path("/d/adjust_bottle"), mixture="robotwin_task1", episodes=2, frames=24
)


def _train(**kwargs: Any) -> dict[str, Any]:
    return train_config(pipeline=Path("/p"), dataset=DATASET, run_root=Path("/r"), **kwargs)


def test_eval_and_save_happen_inside_the_loop() -> None:
    trainer = _train(max_train_steps=3)["trainer"]
    assert trainer["max_train_steps"] == 3
    assert trainer["eval_interval"] == 2
    assert trainer["save_interval"] == 2
    assert trainer["logging_frequency"] == 1


def test_robotwin_settings_match_sixteen_step_fourteen_dim_data() -> None:
    config = _train()
    action = config["framework"]["action_model"]
    assert action["future_action_window_size"] + 1 == action["action_horizon"] == 16
    assert action["action_dim"] == action["state_dim"] == 14
    assert config["framework"]["cosmos25"]["training"] == "joint"
    data = config["datasets"]["vla_data"]
    assert (data["data_mix"], data["video_backend"]) == ("robotwin_task1", "opencv")
    assert config["trainer"]["freeze_modules"] == FREEZE_MODULES


def test_backbone_dimensions_follow_the_tiny_pipeline() -> None:
    spec = TinyCosmosSpec(heads=4, head_dim=8, layers=3)
    config = train_config(pipeline=Path("/p"), dataset=DATASET, run_root=Path("/r"), spec=spec)
    cosmos = config["framework"]["cosmos25"]
    assert cosmos["vl_hidden_dim"] == 32
    assert cosmos["extract_layer"] == 2
    dit = config["framework"]["action_model"]["diffusion_model_cfg"]
    assert dit["cross_attention_dim"] == 32


@pytest.mark.parametrize(("precision", "dtype"), [("bf16", "bfloat16"), ("fp32", "float32")])
def test_precision_sets_backbone_dtype(precision: str, dtype: str) -> None:
    cosmos = _train(precision=precision)["framework"]["cosmos25"]
    assert cosmos["torch_dtype"] == dtype


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="precision"):
        _train(precision="fp16")
    with pytest.raises(ValueError, match="max_train_steps"):
        _train(max_train_steps=1)
    with pytest.raises(ValueError, match="zero"):
        deepspeed_config(1)
    with pytest.raises(ValueError, match="num_processes"):
        accelerate_config(Path("/ds.json"), 0)


@pytest.mark.parametrize("zero", [2, 3])
@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_deepspeed_bf16_is_stated_never_auto(zero: int, precision: str) -> None:
    config = deepspeed_config(zero, precision)  # type: ignore[arg-type]
    assert config["bf16"] == {"enabled": precision == "bf16"}
    assert config["zero_optimization"]["stage"] == zero
    assert config["zero_optimization"]["overlap_comm"] is False


def test_zero3_gathers_weights_for_the_state_dict() -> None:
    assert deepspeed_config(3)["zero_optimization"]["stage3_gather_16bit_weights_on_model_save"]


def test_accelerate_config_defers_precision_to_deepspeed(tmp_path: Path) -> None:
    config = accelerate_config(tmp_path / "ds.json", 2)
    assert "mixed_precision" not in config
    assert config["distributed_type"] == "DEEPSPEED"
    assert config["num_processes"] == 2
    assert config["deepspeed_config"]["deepspeed_config_file"] == str(tmp_path / "ds.json")


def test_yaml_round_trips(tmp_path: Path) -> None:
    from ruamel.yaml import YAML

    config = _train()
    path = write_yaml(tmp_path / "train.yaml", config)
    assert YAML(typ="safe", pure=True).load(path.read_text()) == config
