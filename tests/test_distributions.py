"""`migrator.engine.distributions` answers as `importlib.metadata` does, without importing it."""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path

import pytest

from migrator.engine import distributions


def _metadata_entry_points(group: str) -> list[tuple[str, str, str]]:
    return [
        (entry.name, entry.value, distributions.normalize(entry.dist.metadata["Name"]))
        for entry in importlib.metadata.entry_points(group=group)
        if entry.dist is not None
    ]


@pytest.mark.parametrize("group", ["console_scripts", "npu_migrator.targets", "no.such.group"])
def test_the_entry_points_of_this_environment_are_importlib_metadata_s(group: str) -> None:
    found = [(e.name, e.value, e.project) for e in distributions.entry_points(group)]
    assert found == _metadata_entry_points(group)


def test_the_releases_of_this_environment_are_importlib_metadata_s() -> None:
    names = {dist.metadata["Name"] for dist in importlib.metadata.distributions()}
    for name in sorted(names):
        assert distributions.version(name) == importlib.metadata.version(name), name
    assert distributions.version("no-such-project-here") is None


def _install(site: Path, folder: str, entry_points: str, version: str) -> None:
    meta = site / folder
    meta.mkdir(parents=True)
    name = folder.partition("-")[0]
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
    (meta / "entry_points.txt").write_text(entry_points)


def test_the_first_folder_on_the_path_wins_and_an_install_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    body = "# a comment\n[npu_migrator.targets]\n  xpu = target_xpu \n\n[other]\nx = y\n"
    _install(first, "fake-1.0.dist-info", body, "1.0")
    _install(second, "Fake-2.0.dist-info", body.replace("xpu", "ypu"), "2.0")
    _install(second, "Upper.Case-1.0.DIST-INFO", "[npu_migrator.targets]\nu = target_u\n", "1.0")
    monkeypatch.setattr(sys, "path", [str(first), str(second), str(tmp_path / "missing")])
    assert distributions.version("FAKE") == "1.0" == importlib.metadata.version("FAKE")
    got = [(e.name, e.value, e.project) for e in distributions.entry_points("npu_migrator.targets")]
    expected = [("xpu", "target_xpu", "fake"), ("u", "target_u", "upper_case")]
    assert got == expected == _metadata_entry_points("npu_migrator.targets")
    assert distributions.version("upper-case") == "1.0" == importlib.metadata.version("upper-case")
    # A project installed in a folder already read is seen (its listing is not held stale).
    _install(first, "other_tool-3.0.dist-info", "[npu_migrator.targets]\nzpu = z\n", "3.0")
    # A later modification time, as a real install gets (both readers key listings on it).
    later = first.stat().st_mtime_ns + 2_000_000_000
    os.utime(first, ns=(later, later))
    got = [e.value for e in distributions.entry_points("npu_migrator.targets")]
    assert got == [e.value for e in importlib.metadata.entry_points(group="npu_migrator.targets")]
    assert "z" in got


def test_a_zip_on_the_path_is_left_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "a.zip"
    archive.write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(archive)])
    called: list[str] = []
    monkeypatch.setattr(
        distributions, "_entry_points_from_metadata", lambda group: called.append(group) or []
    )
    assert distributions.entry_points("g") == [] and called == ["g"]
