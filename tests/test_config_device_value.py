"""Configs and the code that reads them migrate together (issues 11 and 12).

A comparison of a value read by a config key (`config["device"] == "cuda"`,
`self.device.type == "cuda"` from `torch.device(cfg.run.device)`) moves to the NPU alone
when the run migrates that key's values in the project's configs (NPU120), and accepts both
devices otherwise: rewriting only one side made `set_device` silently skipped (OpenDWM).
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import invoke

CODE = """import torch


class Runner:
    def __init__(self, cfg):
        self.device = torch.device(cfg.run.device)

    def step(self, batch):
        if self.device.type == "cuda":
            batch = batch.pin_memory()
        return batch


def setup(config, local_rank):
    if config["device"] == "cuda":
        torch.cuda.set_device(local_rank)


def check(device):
    assert device in ["cpu", "cuda"]
"""
FILES = {
    "configs/run.yaml": 'run:\n  device: "cuda"   # the card\n',
    "configs/dwm.json": '{\n    "device": "cuda"\n}\n',
    "pkg/runner.py": CODE,
}


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_config_and_comparisons_move_together(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", FILES)
    result = invoke(str(root), "--allow-no-vcs", "--select", "NPU010,NPU120")
    assert result.exit_code == 0, result.output
    assert (root / "configs/run.yaml").read_text() == 'run:\n  device: "npu"   # the card\n'
    assert (root / "configs/dwm.json").read_text() == '{\n    "device": "npu"\n}\n'
    code = (root / "pkg/runner.py").read_text()
    assert 'if self.device.type == "npu":' in code
    assert 'if config["device"] == "npu":' in code
    # A bare parameter: its source is unknown, so it accepts both.
    assert 'assert device in ["cpu", "cuda", "npu"]' in code


def test_comparisons_accept_both_when_the_configs_are_not_migrated(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", FILES)
    result = invoke(str(root), "--allow-no-vcs", "--select", "NPU010")
    assert result.exit_code == 0, result.output
    assert (root / "configs/dwm.json").read_text() == FILES["configs/dwm.json"]
    code = (root / "pkg/runner.py").read_text()
    assert 'if config["device"] in ("cuda", "npu"):' in code
    assert 'if self.device.type in ("cuda", "npu"):' in code


def test_comparisons_of_keys_no_config_holds_accept_both(tmp_path: Path) -> None:
    files = {**FILES, "configs/run.yaml": "run:\n  backend: cuda\n"}
    del files["configs/dwm.json"]
    root = _project(tmp_path / "p", files)
    assert invoke(str(root), "--allow-no-vcs", "--select", "NPU010,NPU120").exit_code == 0
    code = (root / "pkg/runner.py").read_text()
    assert 'if config["device"] in ("cuda", "npu"):' in code
    assert (root / "configs/run.yaml").read_text() == "run:\n  backend: cuda\n"


def test_a_large_json_files_device_values_are_placed_exactly(tmp_path: Path) -> None:
    """A dataset's annotations beside the configs: 30,000 records, device keys among them.
    Each value is placed through one index of the file's lines (counting the lines before
    each of its strings took minutes on such a file), at the line and column a count
    gives."""
    import json

    from migrator.formats.json_spans import LineIndex, line_col

    records = [{"file": f"img_{i}.jpg", "caption": "a cat", "id": str(i)} for i in range(30_000)]
    for at in (0, 12_345, 29_999):
        records[at]["map_location"] = "cuda:1"
    text = json.dumps({"device": "cuda", "images": records}, indent=1) + "\n"
    index = LineIndex(text)
    for offset in (0, 1, len(text) // 3, text.rfind("\n"), len(text) - 1, len(text)):
        assert index.line_col(offset) == line_col(text, offset)
    root = _project(tmp_path / "p", {"data/ann.json": text})
    result = invoke(str(root), "--allow-no-vcs", "--dry-run", "--select", "NPU120")
    assert result.exit_code == 1, result.output  # a dry run that would change files
    expected = []
    for value in ('"device": "cuda"', '"map_location": "cuda:1"'):
        at = text.find(value)
        while at >= 0:
            start = at + value.index(": ") + 3
            line, column = line_col(text, start)
            expected.append(f"{line}:{column}")
            at = text.find(value, at + 1)
    placed = [
        line.split("ann.json:", 1)[1].split(": NPU120")[0]
        for line in result.output.splitlines()
        if ": NPU120" in line
    ]
    assert sorted(placed) == sorted(expected) and len(placed) == 4
