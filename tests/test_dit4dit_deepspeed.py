"""The generated DeepSpeed and accelerate configs, checked three ways:

- always: against DeepSpeed's config field names and types, recorded below from
  DeepSpeed 0.18.4 (the version DiT4DiT pins), and for the tuned values;
- through accelerate's own launch path (`accelerate launch --config_file ...` up to the
  DeepSpeedPlugin the trainer builds), which rejects a `mixed_precision` key next to a
  DeepSpeed config file and fills the "auto" values;
- where DeepSpeed is importable (the dev extra installs it): by DeepSpeed's own config
  classes, `DeepSpeedConfig` and the pydantic `DeepSpeedZeroConfig` / `DeepSpeedBF16Config`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from target_dit4dit.generated import template

# DeepSpeed 0.18.4: JSON key -> Python types its config model accepts. In
# `zero_optimization` the stage-3 keys are pydantic aliases (e.g. `prefetch_bucket_size`
# is read from "stage3_prefetch_bucket_size"); `stage` is ZeroStageEnum (0-3).
DEEPSPEED_TOP_LEVEL: dict[str, tuple[type, ...]] = {
    "train_micro_batch_size_per_gpu": (int, str),
    "train_batch_size": (int, str),
    "gradient_accumulation_steps": (int, str),
    "gradient_clipping": (float, int),
    "fp16": (dict,),
    "bf16": (dict,),
    "zero_optimization": (dict,),
}
DEEPSPEED_ZERO: dict[str, tuple[type, ...]] = {
    "stage": (int,),
    "overlap_comm": (bool,),
    "contiguous_gradients": (bool,),
    "reduce_bucket_size": (int,),
    "allgather_bucket_size": (int,),
    "sub_group_size": (int,),
    "stage3_prefetch_bucket_size": (int,),
    "stage3_param_persistence_threshold": (int,),
    "stage3_max_live_parameters": (int,),
    "stage3_max_reuse_distance": (int,),
    "stage3_gather_16bit_weights_on_model_save": (bool,),
}
AUTO_FILLED = ("train_micro_batch_size_per_gpu", "train_batch_size", "gradient_accumulation_steps")

TUNED = {
    2: {
        "overlap_comm": True,
        "contiguous_gradients": True,
        "reduce_bucket_size": 500_000_000,
        "allgather_bucket_size": 500_000_000,
    },
    3: {
        "overlap_comm": True,
        "contiguous_gradients": True,
        "reduce_bucket_size": 500_000_000,
        "allgather_bucket_size": 500_000_000,
        "stage3_prefetch_bucket_size": 500_000_000,
        "stage3_param_persistence_threshold": 1_000_000,
        "stage3_max_live_parameters": 1_000_000_000,
        "stage3_max_reuse_distance": 1_000_000_000,
        "stage3_gather_16bit_weights_on_model_save": True,
    },
}
STAGES = sorted(TUNED)


def ds_json(stage: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(template(f"npu_zero{stage}.json"))
    return data


@pytest.mark.parametrize("stage", STAGES)
def test_json_uses_only_deepspeed_keys_of_the_right_types(stage: int) -> None:
    config = ds_json(stage)
    for key, value in config.items():
        assert key in DEEPSPEED_TOP_LEVEL, key
        assert isinstance(value, DEEPSPEED_TOP_LEVEL[key]), key
        if isinstance(value, str):
            assert key in AUTO_FILLED and value == "auto", key
    for key, value in config["zero_optimization"].items():
        assert key in DEEPSPEED_ZERO, key
        assert isinstance(value, DEEPSPEED_ZERO[key]), key


@pytest.mark.parametrize("stage", STAGES)
def test_json_has_the_tuned_npu_values(stage: int) -> None:
    config = ds_json(stage)
    assert config["zero_optimization"]["stage"] == stage
    for key, value in TUNED[stage].items():
        assert config["zero_optimization"][key] == value, key
    assert config["bf16"] == {"enabled": True}, "true, never 'auto' (the ZeRO-3 dtype assertion)"
    assert config["fp16"] == {"enabled": False}
    assert config["gradient_clipping"] == 1.0
    for key in AUTO_FILLED:
        assert config[key] == "auto"


@pytest.mark.parametrize("stage", STAGES)
def test_accelerate_yaml_points_at_the_json_and_has_no_mixed_precision(stage: int) -> None:
    from ruamel.yaml import YAML

    config = YAML(typ="safe").load(template(f"npu_zero{stage}.yaml"))
    assert config["distributed_type"] == "DEEPSPEED"
    assert config["deepspeed_config"]["deepspeed_config_file"] == (
        f"./DiT4DiT/config/deepseeds/npu_zero{stage}.json"
    )
    assert "mixed_precision" not in config
    assert "mixed_precision" not in config["deepspeed_config"]


def _checkout(root: Path, stage: int, yaml_extra: str = "", json_patch: Any = None) -> Path:
    folder = root / "DiT4DiT/config/deepseeds"
    folder.mkdir(parents=True)
    config = ds_json(stage)
    if json_patch is not None:
        json_patch(config)
    (folder / f"npu_zero{stage}.json").write_text(json.dumps(config))
    yaml = folder / f"npu_zero{stage}.yaml"
    yaml.write_bytes(template(f"npu_zero{stage}.yaml") + yaml_extra.encode())
    return yaml


def _launch_env(yaml: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """What `accelerate launch --config_file YAML --num_processes 2 train.py` hands the
    trainer, through accelerate's own argument handling (the launcher itself is stubbed)."""
    import accelerate.commands.launch as launch
    from accelerate.utils.launch import prepare_deepspeed_cmd_env

    seen: list[Any] = []
    monkeypatch.setattr(launch, "deepspeed_launcher", seen.append)
    # Port 0: no probe of the default port, which another process may hold.
    args = launch.launch_command_parser().parse_args(
        ["--config_file", str(yaml), "--num_processes", "2", "--main_process_port", "0", "train.py"]
    )
    launch.launch_command(args)
    _, env = prepare_deepspeed_cmd_env(seen[0])
    return {key: value for key, value in env.items() if key.startswith("ACCELERATE_")}


def _plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: int, **options: Any) -> Any:
    """The trainer's `DeepSpeedPlugin()` after `accelerate launch`, "auto" values filled."""
    from accelerate.utils import DeepSpeedPlugin

    yaml = _checkout(tmp_path, stage, **options)
    monkeypatch.chdir(tmp_path)
    for key in [key for key in os.environ if key.startswith("ACCELERATE_")]:
        monkeypatch.delenv(key)
    for key, value in _launch_env(yaml, monkeypatch).items():
        monkeypatch.setenv(key, value)
    plugin = DeepSpeedPlugin()
    # What AcceleratorState does with the launch's mixed precision ("no": none in the YAML).
    plugin.set_mixed_precision(os.environ["ACCELERATE_MIXED_PRECISION"])
    plugin.deepspeed_config_process(
        must_match=False,
        train_micro_batch_size_per_gpu=2,
        gradient_accumulation_steps=4,
        train_batch_size=2 * 4,
    )
    return plugin


@pytest.mark.parametrize("stage", STAGES)
def test_accelerate_launch_accepts_the_configs_and_keeps_bf16_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: int
) -> None:
    plugin = _plugin(tmp_path, monkeypatch, stage)
    assert plugin.zero_stage == stage
    config = plugin.deepspeed_config
    assert config["bf16"]["enabled"] is True
    assert config["train_micro_batch_size_per_gpu"] == 2
    assert config["gradient_accumulation_steps"] == 4


def test_accelerate_rejects_mixed_precision_next_to_a_deepspeed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why the YAMLs have no mixed_precision key (not even "no")."""
    with pytest.raises(ValueError, match="mixed_precision"):
        _plugin(tmp_path, monkeypatch, 3, yaml_extra="mixed_precision: 'no'\n")


def test_bf16_auto_would_end_up_disabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Upstream's ZeRO-3 JSON says bf16 "auto": accelerate resolves it to off, which is the
    real cause of the ZeRO-3 dtype assertion. The generated JSONs say true."""

    def auto(config: dict[str, Any]) -> None:
        config["bf16"]["enabled"] = "auto"

    plugin = _plugin(tmp_path, monkeypatch, 3, json_patch=auto)
    assert plugin.deepspeed_config["bf16"]["enabled"] is False


@pytest.mark.parametrize("stage", STAGES)
def test_deepspeed_own_config_classes_accept_the_configs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: int
) -> None:
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.config import DeepSpeedConfig
    from deepspeed.runtime.precision_config import DeepSpeedBF16Config
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    raw = ds_json(stage)
    # strict=True: DeepSpeed would otherwise drop "auto" values silently.
    zero = DeepSpeedZeroConfig(strict=True, **raw["zero_optimization"])
    assert int(zero.stage) == stage
    if stage == 3:
        assert zero.prefetch_bucket_size == 500_000_000
        assert zero.param_persistence_threshold == 1_000_000
        assert zero.max_live_parameters == zero.max_reuse_distance == 1_000_000_000
        assert zero.gather_16bit_weights_on_model_save is True
    assert DeepSpeedBF16Config(strict=True, **raw["bf16"]).enabled is True

    filled = _plugin(tmp_path, monkeypatch, stage).deepspeed_config
    config = DeepSpeedConfig(filled)
    assert config.zero_optimization_stage == stage
    assert config.bfloat16_config.enabled is True
    assert config.gradient_clipping == 1.0
    assert config.zero_config.reduce_bucket_size == 500_000_000


def test_deepspeed_rejects_an_unknown_zero_key() -> None:
    """The validation above can fail: a misspelt key is an error, not ignored."""
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    with pytest.raises(ValueError, match="stage3_prefetch_buket_size"):
        DeepSpeedZeroConfig(strict=True, stage=3, stage3_prefetch_buket_size=1)


def test_recorded_field_names_are_deepspeeds() -> None:
    """The table this file records stays true to the installed DeepSpeed."""
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    fields = DeepSpeedZeroConfig.model_fields
    known = set(fields) | {field.alias for field in fields.values() if field.alias}
    assert set(DEEPSPEED_ZERO) <= known
    for key in ("reduce_bucket_size", "allgather_bucket_size", "sub_group_size"):
        assert fields[key].annotation is int
