"""A training config for the RoboTwin data: `DiT4DiT/config/robotwin/dit4dit_robotwin.yaml`.

The `robotwin` mixture (AgileX arms: left and right joints plus grippers, 14 values of
state and of action) loads 16-step action chunks, and upstream ships no config for it.
A config with `future_action_window_size: 7` (as in the blog posts) makes the action head
predict 8 steps against 16-step targets, which fails on any device; and only
`training: joint` is implemented. So the config is derived, at migration time, from the
checkout's own config of the closest kind (one that already predicts 16 steps, if any)
with ruamel.yaml, keeping its comments and layout, and only these keys changed.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from migrator.contract.profile import StepInput
from migrator.core.model import FileResult
from target_dit4dit.generated import Generated, not_generated

CODE = "DIT092"
PATH = "DiT4DiT/config/robotwin/dit4dit_robotwin.yaml"
CONFIGS = "DiT4DiT/config"
ACTION_STEPS = 16
DIMS = 14

# (section path, key, value). Key names are the ones upstream's configs and
# DiT4DiT/dataloader/gr00t_lerobot/{mixtures,data_config}.py use.
CHANGES: tuple[tuple[tuple[str, ...], str, Any], ...] = (
    ((), "run_id", "dit4dit_robotwin"),
    (("framework", "cosmos25"), "training", "joint"),
    (("framework", "action_model"), "action_dim", DIMS),
    (("framework", "action_model"), "state_dim", DIMS),
    (("framework", "action_model"), "future_action_window_size", ACTION_STEPS - 1),
    (("framework", "action_model"), "action_horizon", ACTION_STEPS),
    (("datasets", "vla_data"), "data_root_dir", "/path/to/dataset/robotwin"),
    (("datasets", "vla_data"), "data_mix", "robotwin"),
    (("datasets", "vla_data"), "max_state_dim", DIMS),
    (("datasets", "vla_data"), "max_action_dim", DIMS),
    # The current frame and one per predicted step, as upstream's 16-step configs have.
    (("datasets", "vla_data"), "video_delta_indices", list(range(ACTION_STEPS + 1))),
)
SECTIONS = {section for section, _, _ in CHANGES if section}


def _yaml() -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.representer import RoundTripRepresenter

    class Representer(RoundTripRepresenter):
        """Writes `null` as upstream does (ruamel writes nothing after the colon); a
        subclass, because add_representer changes the class it is called on."""

    Representer.add_representer(type(None), _null)
    yaml = YAML()
    yaml.Representer = Representer
    yaml.preserve_quotes = True
    yaml.width = 4096
    return yaml


def _null(representer: Any, _: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def _section(data: Any, names: Iterable[str]) -> Any:
    for name in names:
        data = data.get(name) if isinstance(data, dict) else None
    return data


def _load(path: Path) -> Any:
    try:
        data = _yaml().load(path.read_text(encoding="utf-8"))
    except Exception:  # any unreadable or malformed config is simply not a candidate
        return None
    if not isinstance(data, dict) or any(not isinstance(_section(data, s), dict) for s in SECTIONS):
        return None
    return data


def closest_config(root: Path) -> tuple[str, Any] | None:
    """The checkout's training config that is closest to what RoboTwin needs.

    Candidates are `DiT4DiT/config/<kind>/*.yaml` (not the DeepSpeed folder, not the
    generated file) with the sections the changes touch; one whose action head already
    predicts 16 steps is preferred, then the first by path.
    """
    found: list[tuple[bool, str, Any]] = []
    for path in sorted((root / CONFIGS).glob("*/*.yaml")):
        rel = path.relative_to(root).as_posix()
        if rel == PATH or path.parent.name == "deepseeds" or not path.is_file():
            continue
        data = _load(path)
        if data is not None:
            horizon = _section(data, ("framework", "action_model")).get("action_horizon")
            found.append((horizon != ACTION_STEPS, rel, data))
    if not found:
        return None
    _, rel, data = min(found, key=lambda item: (item[0], item[1]))
    return rel, data


def _flow_list(values: list[int]) -> Any:
    from ruamel.yaml.comments import CommentedSeq

    seq = CommentedSeq(values)
    seq.fa.set_flow_style()
    return seq


def render(base: str, data: Any) -> str:
    for section, key, value in CHANGES:
        mapping = _section(data, section)
        if mapping.get(key) == value:
            continue
        mapping[key] = _flow_list(value) if isinstance(value, list) else value
    stream = io.StringIO()
    _yaml().dump(data, stream)
    changed = ", ".join(".".join((*section, key)) for section, key, _ in CHANGES)
    header = (
        "DiT4DiT on the RoboTwin data (mixture `robotwin`: AgileX arms, 14-dim state and "
        "actions, 16-step action chunks), for Ascend NPUs. Generated by npu-migrator "
        f"(dit4dit profile) from {base}, with these keys changed: {changed}. Set "
        "framework.cosmos25.base_model and datasets.vla_data.data_root_dir here, or "
        "BASE_MODEL and DATA_ROOT_DIR for scripts/train_npu.sh."
    )
    comment = textwrap.fill(header, width=90, initial_indent="# ", subsequent_indent="# ")
    return comment + "\n" + stream.getvalue()


def build(given: StepInput) -> list[Generated | FileResult]:
    found = closest_config(given.root)
    if found is None:
        return [
            not_generated(
                PATH,
                CODE,
                f"no training config under {CONFIGS}/ to derive it from",
                "copy a DiT4DiT training config and set training: joint, "
                "future_action_window_size: 15, action_horizon: 16 and 14-dim actions and state",
            )
        ]
    base, data = found
    note = (
        f"RoboTwin training config derived from {base} (joint training, 16-step actions, "
        "14-dim state and actions); set base_model and data_root_dir"
    )
    return [Generated(PATH, render(base, data).encode("utf-8"), CODE, note, review=True)]
