"""A miniature DiT4DiT checkout (tests/fixtures/dit4dit_configs), copied for each test."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "dit4dit_configs"

GENERATED = (
    "DiT4DiT/config/deepseeds/npu_zero2.json",
    "DiT4DiT/config/deepseeds/npu_zero2.yaml",
    "DiT4DiT/config/deepseeds/npu_zero3.json",
    "DiT4DiT/config/deepseeds/npu_zero3.yaml",
    "scripts/train_npu.sh",
    "DiT4DiT/config/robotwin/dit4dit_robotwin.yaml",
    "requirements-npu.txt",
    "NPU_MIGRATION.md",
)


def checkout(tmp_path: Path, name: str = "checkout") -> Path:
    root = tmp_path / name
    shutil.copytree(FIXTURE, root)
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }
