"""The generated RoboTwin training config: derived from the checkout's closest config with
the RoboTwin shapes (joint training, 16-step actions, 14-dim state and actions), its
comments and other keys kept."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from migrator.contract.profile import StepInput
from migrator.contract.rule import RuleOptions
from migrator.core.target import NPU
from target_dit4dit import robotwin_config
from target_dit4dit.generated import Generated
from tests.dit4dit_checkout import checkout

HUMANOID = "DiT4DiT/config/humanoid_16step/humanoid.yaml"
ARM = "DiT4DiT/config/arm_8step/arm.yaml"


def _build(root: Path) -> Any:
    (item,) = robotwin_config.build(StepInput(root, [], (), NPU, RuleOptions()))
    return item


def _generated(root: Path) -> tuple[str, Any]:
    item = _build(root)
    assert isinstance(item, Generated)
    text = item.data.decode("utf-8")
    return text, YAML(typ="safe").load(text)


def _assert_robotwin_shapes(config: Any) -> None:
    assert config["framework"]["cosmos25"]["training"] == "joint"
    action = config["framework"]["action_model"]
    assert action["future_action_window_size"] == 15
    assert action["action_horizon"] == 16
    assert action["action_dim"] == action["state_dim"] == 14
    data = config["datasets"]["vla_data"]
    assert data["max_action_dim"] == data["max_state_dim"] == 14
    assert data["data_mix"] == "robotwin"
    assert data["video_delta_indices"] == list(range(17))


def test_derived_from_the_config_that_already_predicts_16_steps(tmp_path: Path) -> None:
    text, config = _generated(checkout(tmp_path))
    _assert_robotwin_shapes(config)
    assert f"from {HUMANOID}" in text.replace("\n# ", " ")
    assert config["run_id"] == "dit4dit_robotwin"
    assert config["trainer"]["learning_rate"]["base"] == 1e-05
    assert config["framework"]["cosmos25"]["flow_matching"]["high_sigma_ratio"] is None


def test_comments_and_layout_of_the_base_config_are_kept(tmp_path: Path) -> None:
    text, _ = _generated(checkout(tmp_path))
    assert "wandb_project: fixture   # kept as it is\n" in text
    assert "  # a comment that must survive\n  max_train_steps: 10\n" in text
    assert "    action_dim: 14      # padded arm + hand joints\n" in text
    assert "      high_sigma_ratio: null\n" in text
    assert "    base: 1e-05\n" in text


def test_an_8_step_config_is_used_when_no_16_step_one_exists(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    shutil.rmtree(root / "DiT4DiT/config/humanoid_16step")
    text, config = _generated(root)
    _assert_robotwin_shapes(config)
    assert f"from {ARM}" in text.replace("\n# ", " ")
    assert (
        "    video_delta_indices: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\n"
        in (text)
    )


def test_the_generated_file_is_never_its_own_base(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    shutil.rmtree(root / "DiT4DiT/config/humanoid_16step")
    own = root / robotwin_config.PATH
    own.parent.mkdir(parents=True)
    shutil.copy(root / "DiT4DiT/config/arm_8step/arm.yaml", own)
    own.write_text(own.read_text().replace("action_horizon: 8", "action_horizon: 16"))
    text, _ = _generated(root)
    assert f"from {ARM}" in text.replace("\n# ", " ")


def test_malformed_and_unrelated_yaml_files_are_not_candidates(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    (root / "DiT4DiT/config/aaa_broken").mkdir()
    (root / "DiT4DiT/config/aaa_broken/broken.yaml").write_text("framework: [unclosed\n")
    (root / "DiT4DiT/config/aaa_other").mkdir()
    (root / "DiT4DiT/config/aaa_other/other.yaml").write_text("just: a mapping\n")
    text, _ = _generated(root)
    assert f"from {HUMANOID}" in text.replace("\n# ", " ")


def test_no_training_config_means_a_warning_not_a_file(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    for folder in ("humanoid_16step", "arm_8step"):
        shutil.rmtree(root / "DiT4DiT/config" / folder)
    item = _build(root)
    assert not isinstance(item, Generated)
    (warning,) = item.warnings
    assert warning.code == "DIT092" and warning.message.startswith("not generated")


def test_the_same_checkout_gives_the_same_bytes(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    assert _build(root).data == _build(root).data
