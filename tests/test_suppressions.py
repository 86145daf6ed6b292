"""`# migrate: ignore` comments, end to end through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from migrator.formats.suppressions import python_suppressions, text_suppressions
from tests.helpers import AUTOCAST, MIGRATED, invoke

REGION = 'with torch.autocast("cuda"):'


def run_file(tmp_path: Path, name: str, text: str, *flags: str) -> tuple[str, str]:
    root = tmp_path / "p"
    root.mkdir(exist_ok=True)
    file = root / name
    file.write_text(text)
    result = invoke(str(root), "--allow-no-vcs", *flags)
    assert result.exit_code in (0, 1), result.stderr
    return file.read_text(), result.stderr


def test_line_comment_keeps_the_site_and_counts_it(tmp_path: Path) -> None:
    source = AUTOCAST.replace(REGION, REGION + "  # migrate: ignore")
    after, stderr = run_file(tmp_path, "a.py", source)
    assert after == source
    assert "0 edits (0 need review), 0 warnings, 1 suppressed" in stderr


def test_code_list_suppresses_only_the_codes_named(tmp_path: Path) -> None:
    other = AUTOCAST.replace(REGION, REGION + "  # migrate: ignore[NPU999, DIT]")
    after, _ = run_file(tmp_path, "other.py", other)
    assert after == MIGRATED.replace('"npu"):', '"npu"):  # migrate: ignore[NPU999, DIT]')
    named = AUTOCAST.replace(REGION, REGION + "  # migrate: ignore[NPU012,NPU001]")
    after, stderr = run_file(tmp_path, "named.py", named)
    assert after == named
    assert "1 suppressed" in stderr


@pytest.mark.parametrize("prefix", ["NPU0", "npu", "NPU00"])
def test_code_prefix_in_any_case(tmp_path: Path, prefix: str) -> None:
    source = AUTOCAST.replace(REGION, REGION + f"  # migrate: ignore[{prefix}]")
    after, _ = run_file(tmp_path, "a.py", source)
    assert after == source


def test_malformed_code_list_suppresses_nothing(tmp_path: Path) -> None:
    source = AUTOCAST.replace(REGION, REGION + "  # migrate: ignore[NPU-001]")
    after, stderr = run_file(tmp_path, "a.py", source, "--verbose")
    assert '"npu"' in after, "a typo must not widen the comment to every code"
    assert "a.py:5: unused suppression (NPU-001)" in stderr


def test_file_level_comment_in_the_first_ten_lines(tmp_path: Path) -> None:
    source = '"""Kept on CUDA on purpose."""\n# migrate: ignore-file\n' + AUTOCAST
    after, stderr = run_file(tmp_path, "a.py", source, "--verbose")
    assert after == source
    assert "unused suppression" not in stderr


def test_file_level_comment_with_codes(tmp_path: Path) -> None:
    kept = "# migrate: ignore-file[NPU001]\n" + AUTOCAST
    after, stderr = run_file(tmp_path, "kept.py", kept)
    assert after == kept
    assert "1 suppressed" in stderr
    other = "# migrate: ignore-file[NPU05]\n" + AUTOCAST
    after, stderr = run_file(tmp_path, "other.py", other, "--verbose")
    assert '"npu"' in after
    assert "other.py:1: unused suppression (NPU05)" in stderr


def test_file_level_comment_after_line_ten_is_reported_not_obeyed(tmp_path: Path) -> None:
    source = "\n" * 11 + "# migrate: ignore-file\n" + AUTOCAST
    after, stderr = run_file(tmp_path, "a.py", source, "--verbose")
    assert '"npu"' in after
    assert "a.py:12: unused suppression (ignore-file outside the first 10 lines" in stderr


def test_unused_suppressions_are_listed_only_with_verbose(tmp_path: Path) -> None:
    source = "x = 1  # migrate: ignore\n" + AUTOCAST
    _, quiet = run_file(tmp_path, "a.py", source, "--dry-run")
    assert "unused suppression" not in quiet
    _, verbose = run_file(tmp_path, "a.py", source, "--dry-run", "--verbose")
    assert "a.py:1: unused suppression (*)" in verbose


def test_unused_suppression_in_a_file_no_rule_reads(tmp_path: Path) -> None:
    """The fast path skips the file unparsed, yet reports what the full path reports."""
    for full in ([], ["--full-parse"]):
        _, stderr = run_file(tmp_path, "a.py", "x = 1  # migrate: ignore[NPU001]\n", "-v", *full)
        assert "a.py:1: unused suppression (NPU001)" in stderr


def test_comment_inside_a_string_is_not_a_suppression(tmp_path: Path) -> None:
    source = AUTOCAST.replace(REGION, REGION[:-2] + ', cache_enabled="# migrate: ignore"):')
    after, _ = run_file(tmp_path, "a.py", source)
    assert '"npu"' in after


def test_suppressed_sites_are_listed_in_the_json_report(tmp_path: Path) -> None:
    source = AUTOCAST.replace(REGION, REGION + "  # migrate: ignore[NPU001]")
    source += "y = 2  # migrate: ignore\n"
    report = tmp_path / "r.json"
    run_file(tmp_path, "a.py", source, "--dry-run", "--report", str(report))
    data = json.loads(report.read_text())
    assert data["summary"]["suppressed"] == 1
    (entry,) = data["files"]
    assert entry["suppressed"] == [{"path": "a.py", "line": 5, "code": "NPU001", "cell": None}]
    assert entry["unused_suppressions"] == [{"path": "a.py", "line": 7, "code": "*", "cell": None}]
    markdown = tmp_path / "r.md"
    run_file(tmp_path, "a.py", source, "--dry-run", "--report", str(markdown))
    assert "| `a.py` | 5 | NPU001 |" in markdown.read_text()


@pytest.mark.usefixtures("fixture_rules")
def test_shell_script_line_comment(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\n"
        "export CUDA_VISIBLE_DEVICES=0,1  # migrate: ignore[TST100]\n"
        "export CUDA_VISIBLE_DEVICES=2\n"
        'echo "# migrate: ignore" CUDA_VISIBLE_DEVICES\n'
    )
    after, stderr = run_file(tmp_path, "run.sh", script, "--verbose")
    assert after.splitlines() == [
        "#!/bin/bash",
        "export CUDA_VISIBLE_DEVICES=0,1  # migrate: ignore[TST100]",
        "export ASCEND_RT_VISIBLE_DEVICES=2",
        'echo "# migrate: ignore" ASCEND_RT_VISIBLE_DEVICES',
    ]
    assert "run.sh:2: TST100 suppressed by a migrate: ignore comment" in stderr


@pytest.mark.usefixtures("fixture_rules")
def test_shell_comment_on_the_last_line_covers_a_continued_command(tmp_path: Path) -> None:
    script = (
        "torchrun \\\n"
        "  --env CUDA_VISIBLE_DEVICES=0 \\\n"
        "  train.py  # migrate: ignore\n"
        "CUDA_VISIBLE_DEVICES=1 python eval.py\n"
    )
    after, stderr = run_file(tmp_path, "run.sh", script)
    assert after == script.replace("CUDA_VISIBLE_DEVICES=1", "ASCEND_RT_VISIBLE_DEVICES=1")
    assert "1 suppressed" in stderr


@pytest.mark.usefixtures("fixture_rules")
def test_shell_file_level_comment(tmp_path: Path) -> None:
    script = "#!/bin/sh\n# migrate: ignore-file\nexport CUDA_VISIBLE_DEVICES=0\n"
    after, stderr = run_file(tmp_path, "run.sh", script, "--verbose")
    assert after == script
    assert "unused suppression" not in stderr


@pytest.mark.usefixtures("fixture_rules")
def test_requirements_warning_suppressed(tmp_path: Path) -> None:
    text = "torch\nflash-attn==2.6.3  # migrate: ignore[TST101]\n"
    after, stderr = run_file(tmp_path, "requirements.txt", text)
    assert after == text
    assert "0 warnings, 1 suppressed" in stderr


def test_python_and_text_readers_agree_on_plain_comments() -> None:
    text = "a = 1  # migrate: ignore[npu001 , NPU02]\n# migrate: ignore-file\n"
    for found in (python_suppressions(text), text_suppressions(text)):
        assert found.lines == {1: frozenset({"NPU001", "NPU02"})}
        assert found.file_line == 2 and found.skips_file()
