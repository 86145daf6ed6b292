"""The human-port benchmark's scoring, on a tiny project written here (no clones needed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from benchmarks.human_ports import harness

SITES = """
[[site]]
id = "train-moves-model-to-npu"
file = "train.py"
class = "M"
what = "model moved with .npu()"
check = "contains"
text = "model.npu()"
lines = [3, 3]

[[site]]
id = "train-autocast-device"
file = "train.py"
class = "M"
what = "autocast names the npu"
check = "not_contains"
text = 'autocast("cuda")'

[[site]]
id = "flash-attn-reported"
file = "attn.py"
class = "W"
what = "flash-attn has no NPU build"
check = "warning"
lines = [1, 2]
codes = ["NPU05"]

[[site]]
id = "triton-kernel-reported"
file = "attn.py"
class = "W"
what = "Triton kernel"
check = "warning"
lines = [5, 5]

[[verdict]]
file = "train.py"
line = 6
code = "NPU010"
verdict = "wrong"
why = "integer tensor"

[[verdict]]
file = "run.sh"
line = 1
code = "NPU040"
verdict = "useful"
why = "env var"
"""

TRAIN = (
    "import torch\n"
    "model = Net()\n"
    "model.cuda()\n"
    'with torch.autocast("cuda"):\n'
    "    y = model(x)\n"
    "ids = y.argmax()\n"
)
# The edit on line 6 leaves the file unparsable: a broken output.
MIGRATED = (
    TRAIN.replace("model.cuda()", "model.npu()")
    .replace('autocast("cuda")', 'autocast("npu")')
    .replace("y.argmax()", "y.argmax().float(")
)


def _change(path: str, line: int, code: str) -> dict[str, object]:
    return {"path": path, "line": line, "col": 0, "code": code, "message": "m"}


REPORT = {
    "files": [
        {
            "path": "train.py",
            "changes": [
                _change("train.py", 3, "NPU002"),
                _change("train.py", 4, "NPU001"),
                _change("train.py", 6, "NPU010"),
            ],
            "warnings": [],
        },
        {"path": "attn.py", "changes": [], "warnings": [_change("attn.py", 2, "NPU050")]},
        {"path": "run.sh", "changes": [_change("run.sh", 1, "NPU040")], "warnings": []},
    ]
}


def _trees(tmp_path: Path) -> tuple[Path, Path, Path]:
    pristine, out = tmp_path / "upstream", tmp_path / "out"
    for tree, train, script in ((pristine, TRAIN, "X=1\n"), (out, MIGRATED, "if then\n")):
        tree.mkdir()
        (tree / "train.py").write_text(train)
        (tree / "attn.py").write_text("import flash_attn\nflash_attn.f()\n")
        (tree / "run.sh").write_text(script)
    sites = tmp_path / "sites.toml"
    sites.write_text(SITES)
    return pristine, out, sites


def test_score_counts_sites_verdicts_and_broken_files(tmp_path: Path) -> None:
    pristine, out, sites_file = _trees(tmp_path)
    sites, verdicts = harness.load_sites(sites_file)
    result = harness.score("tiny", sites, verdicts, REPORT, pristine, out, patched=pristine)

    assert result.satisfied("M") == (2, 2)
    assert result.satisfied("W") == (1, 2)
    categories = {(j.item.file, j.item.line): j.category for j in result.items}
    assert categories == {
        ("train.py", 3): "site:train-moves-model-to-npu",
        ("train.py", 4): "unjudged",
        ("train.py", 6): "wrong",
        ("attn.py", 2): "site:flash-attn-reported",
        ("run.sh", 1): "useful",
    }
    assert result.broken == ["run.sh", "train.py"]
    hand = {r.site.id: r.hand_port_satisfies for r in result.sites}
    assert hand["train-moves-model-to-npu"] is False
    assert hand["flash-attn-reported"] is None


def test_warning_site_needs_the_named_code(tmp_path: Path) -> None:
    pristine, out, sites_file = _trees(tmp_path)
    sites, verdicts = harness.load_sites(sites_file)
    report = {"files": [{"changes": [], "warnings": [_change("attn.py", 1, "NPU060")]}]}

    result = harness.score("tiny", sites, verdicts, report, pristine, out)

    assert result.satisfied("W") == (0, 2)


def test_table_has_a_row_per_project_and_a_total(tmp_path: Path) -> None:
    pristine, out, sites_file = _trees(tmp_path)
    sites, verdicts = harness.load_sites(sites_file)
    one = harness.score("a", sites, verdicts, REPORT, pristine, out)
    two = harness.score("b", sites, verdicts, REPORT, pristine, out)

    rows = harness.table([one, two]).splitlines()

    assert [row.split(" | ")[0] for row in rows[2:]] == ["| a", "| b", "| **total**"]
    assert rows[-1].split(" | ")[1:8] == ["4/4 (100%)", "2/4 (50%)", "2", "0", "2", "2", "4"]


def test_bad_site_file_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[[site]]\nid = "x"\nfile = "a.py"\nclass = "M"\ncheck = "warning"\n')

    with pytest.raises(harness.DataError, match="needs lines"):
        harness.load_sites(path)


def test_export_skips_missing_blobs_and_patch_is_applied(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    git("init", "-q")
    (repo / "train.py").write_text(TRAIN)
    git("add", ".")
    git("commit", "-q", "-m", "one")
    commit = git("rev-parse", "HEAD")
    (repo / "train.py").write_text(TRAIN.replace("model.cuda()", "model.npu()"))
    patch = git("diff")
    git("checkout", "-q", "train.py")
    git("checkout", "-q", "-b", "sdk")
    (repo / "port.patch").write_text(patch + "\n")
    git("add", "port.patch")
    git("commit", "-q", "-m", "patch")

    dest = tmp_path / "export"
    assert harness.export_tree(repo, commit, dest) == []
    notes = harness.apply_patches(repo, "sdk", ["port.patch"], dest)

    assert "1 files clean" in notes
    assert "model.npu()" in (dest / "train.py").read_text()


def test_markdown_lists_wrong_edits_and_broken_outputs(tmp_path: Path) -> None:
    pristine, out, sites_file = _trees(tmp_path)
    sites, verdicts = harness.load_sites(sites_file)
    result = harness.score("tiny", sites, verdicts, REPORT, pristine, out)

    text = harness.markdown([result], "abc123", "python -m benchmarks.human_ports")

    assert "- tiny: `train.py:6` NPU010: integer tensor" in text
    assert "- tiny: `run.sh`" in text
