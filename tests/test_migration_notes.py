"""NPU_MIGRATION.md of a generic run: what needs a person, by action, and the host set-up.

The fixture (`tests/fixtures/generic_setup`) is a tiny CUDA training project: a `train.py`
that uses the device and NCCL and all-reduces float64, a launch script with a torchrun and
an accelerate line, and requirements pinning torch. Regenerate the expected notes with
`--update-golden` only when they are meant to change, and review the diff.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from migrator import __version__
from migrator.output.migration_notes import PATH, cann_of
from tests.helpers import commit_all, git_repo, invoke

FIXTURE = Path(__file__).parent / "fixtures" / "generic_setup"
EXPECTED = Path(__file__).parent / "fixtures" / "generic_setup.expected" / PATH


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root)
    return root


def test_out_copy_gets_the_notes_of_its_run(tmp_path: Path, update_golden: bool) -> None:
    root, out = _project(tmp_path), tmp_path / "out"
    result = invoke(str(root), "--out", str(out), "--no-cache", "-j1")
    assert result.exit_code == 0, result.output
    assert not (root / PATH).exists(), "--out leaves the project alone"
    text = (out / PATH).read_text(encoding="utf-8").replace(__version__, "<version>")
    if update_golden:
        EXPECTED.parent.mkdir(exist_ok=True)
        EXPECTED.write_text(text, encoding="utf-8")
    assert text == EXPECTED.read_text(encoding="utf-8")


def test_the_notes_count_the_run_that_wrote_them_and_themselves(tmp_path: Path) -> None:
    root, out = _project(tmp_path), tmp_path / "out"
    result = invoke(str(root), "--out", str(out), "--no-cache", "-j1")
    last = result.stderr.strip().splitlines()[-1]
    assert "1 file created" in last
    text = (out / PATH).read_text(encoding="utf-8")
    assert f"**The run that wrote this file:** {last} (counting this file" in text


def test_the_setup_names_the_release_torch_cann_set_env_entries_and_launches(
    tmp_path: Path,
) -> None:
    root, out = _project(tmp_path), tmp_path / "out"
    invoke(str(root), "--out", str(out), "--no-cache", "-j1")
    setup = (out / PATH).read_text(encoding="utf-8").split("## Set-up on the Ascend host")[1]
    for needle in (
        "| torch-npu | 2.7.1.post11 | the newest torch-npu for the project's torch pin",
        "| torch | 2.7.1 | torch-npu 2.7.1.post11 requires `torch==2.7.1` |",
        "the wheel does not name its CANN version; torch-npu 2.7.1.post2 (same torch) pairs "
        "with CANN 8.5.0",
        "pip install torch==2.7.1 torch-npu==2.7.1.post11",
        "pip install -r requirements.txt    # edited for the NPU by this run",
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh",
        'source "$HOME/Ascend/ascend-toolkit/set_env.sh"',
        "| `train.py` | launched by `scripts/train.sh:3` (`torchrun`) | yes (NPU030, line 1) |",
        "| `scripts/train.sh:3` | `train.py` | `torchrun --nproc_per_node 4 train.py` | torchrun",
        "| `scripts/train.sh:4` | `train.py` | `accelerate launch --num_processes 2 train.py` |",
        'HCCL: backend `"hccl"`',
    ):
        assert needle in setup, needle
    grouped = (out / PATH).read_text(encoding="utf-8").split("## Set-up")[0]
    assert (
        "### Change a dtype the NPU lacks" in grouped and "| `train.py` | 10 | NPU062 |" in grouped
    )


def test_dry_run_prints_the_notes_and_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = invoke(str(root), "--dry-run", "--no-cache", "-j1")
    assert result.exit_code == 1
    assert f"+++ b/{PATH}" in result.stdout and "+## Set-up on the Ascend host" in result.stdout
    assert not (root / PATH).exists()


def test_a_file_the_user_wrote_is_kept_with_a_warning(tmp_path: Path) -> None:
    root = git_repo(_project(tmp_path))
    (root / PATH).write_text("# my own notes\n")
    commit_all(root)
    result = invoke(str(root), "--no-cache", "-j1")
    assert result.exit_code == 0, result.output
    assert (root / PATH).read_text() == "# my own notes\n"
    assert f"{PATH}:1:1: NPU094 warning: exists" in result.stderr.replace(str(root) + "/", "")


def test_a_second_run_leaves_the_notes_of_the_first(tmp_path: Path) -> None:
    root = git_repo(_project(tmp_path))
    commit_all(root)
    assert invoke(str(root), "--no-cache", "-j1").exit_code == 0
    first = (root / PATH).read_bytes()
    commit_all(root)
    again = invoke(str(root), "--check", "--no-cache", "-j1")
    assert again.exit_code == 0, again.output
    assert (root / PATH).read_bytes() == first


def test_a_run_with_nothing_to_migrate_writes_no_notes(tmp_path: Path) -> None:
    root = tmp_path / "cpu_only"
    root.mkdir()
    (root / "main.py").write_text("print('no device here')\n")
    result = invoke(str(root), "--out", str(tmp_path / "out"), "--no-cache", "-j1")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "out" / PATH).exists()


def test_ignore_turns_the_notes_off(tmp_path: Path) -> None:
    root, out = _project(tmp_path), tmp_path / "out"
    assert invoke(str(root), "--out", str(out), "--ignore", "NPU094").exit_code == 0
    assert not (out / PATH).exists()


def test_cann_pairing_comes_from_the_wheel_data() -> None:
    assert cann_of("2.7.1.post2")[0] == "8.5.0"
    assert cann_of("2.14.0")[0] == "9.1.0"
    assert cann_of("2.7.1.post11")[0] is None


def test_entries_with_the_patcher_get_mx_driving_in_the_stack(tmp_path: Path) -> None:
    root, out = _project(tmp_path), tmp_path / "out"
    assert invoke(str(root), "--out", str(out), "--patcher", "mx-driving").exit_code == 0
    text = (out / PATH).read_text(encoding="utf-8")
    assert "| mx-driving | 26.2.0.post2 | the entry scripts apply its patcher; it requires " in text
    assert "pip install torch==2.7.1 torch-npu==2.7.1.post11 mx-driving==26.2.0.post2" in text
    plain = tmp_path / "plain"
    assert invoke(str(root), "--out", str(plain)).exit_code == 0
    assert "mx-driving" not in (plain / PATH).read_text(encoding="utf-8")
