"""NPU_MIGRATION.md: built from the run's results, written once, then left alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator.contract.profile import StepInput
from migrator.contract.rule import RuleOptions
from migrator.core.model import FileResult, Finding, Safety, Status
from migrator.core.target import NPU
from target_dit4dit.migration_report import PATH, MigrationReport, render
from tests.dit4dit_checkout import checkout
from tests.helpers import installed_migrate, invoke, run_installed

EDIT = Finding.change("DiT4DiT/training/train.py", 5, 10, "NPU001", 'autocast "cuda" -> "npu"')
REVIEW = Finding.change(
    "DiT4DiT/model/framework/DiT4DiT.py", 147, 14, "NPU001", "fp32 region", True
)
WARNING = Finding.warning("setup.py", 3, 1, "NPU056", "CUDA extension", "port it by hand")
RESULTS = (
    FileResult("DiT4DiT/training/train.py", Status.CHANGED, findings=(EDIT,)),
    FileResult("DiT4DiT/model/framework/DiT4DiT.py", Status.CHANGED, findings=(REVIEW,)),
    FileResult("setup.py", Status.UNCHANGED, findings=(WARNING,)),
    FileResult("broken.py", Status.FAILED, error="cannot parse (line 2)"),
    FileResult("scripts/train_npu.sh", Status.CREATED),
    FileResult("requirements-npu.txt", Status.UNCHANGED),
)


def _step(root: Path, results: tuple[FileResult, ...] = RESULTS) -> FileResult:
    (root / "DiT4DiT/training").mkdir(parents=True, exist_ok=True)
    (root / "DiT4DiT/training/train.py").touch()
    (result,) = MigrationReport()(StepInput(root, [], results, NPU, RuleOptions()))
    return result


def test_report_lists_edits_review_items_warnings_failures_and_generated_files() -> None:
    text = render(RESULTS)
    review = text.split("### Review a rewrite")[1].split("##")[0]
    assert "| `DiT4DiT/model/framework/DiT4DiT.py` | 147 | NPU001 | edited: fp32 region |" in review
    assert "DiT4DiT/training/train.py" not in review
    assert "| `setup.py` | 3 | NPU056 | CUDA extension | port it by hand |" in text
    assert "- `broken.py`: cannot parse (line 2)" in text
    assert '| `DiT4DiT/training/train.py` | 5 | NPU001 | autocast "cuda" -> "npu" |' in text
    assert "| `scripts/train_npu.sh` | launch script for one Ascend node | created |" in text
    assert "| `requirements-npu.txt` | Python packages for the Ascend host | already there" in text
    assert "| `DiT4DiT/config/deepseeds/npu_zero3.json` | DeepSpeed ZeRO-3 config" in text
    assert "2 files changed" in text and "1 file failed" in text


def test_report_has_the_next_steps_on_an_ascend_host() -> None:
    steps = render(()).split("## Next steps to train on an Ascend host")[1]
    for needle in (
        "pip install -r requirements-npu.txt",
        "torch.npu.get_amp_supported_dtype()",
        "bash scripts/train_npu.sh --zero 3",
        "ASCEND_RT_VISIBLE_DEVICES=0,1,2,3 bash scripts/train_npu.sh --num_processes 4",
        "migrate smoke .",
        "| `TASK_QUEUE_ENABLE` | `2` | the operator dispatch queue",
        "grep -n hf_ds_config DiT4DiT/training/train.py",
    ):
        assert needle in steps, needle


def test_report_is_created_when_absent(tmp_path: Path) -> None:
    result = _step(tmp_path)
    assert result.status is Status.CREATED
    assert result.new_data == render(RESULTS).encode()


def test_same_report_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / PATH).write_text(render(RESULTS))
    result = _step(tmp_path)
    assert result.status is Status.UNCHANGED and not result.warnings


def test_a_later_run_with_nothing_new_keeps_the_report_quietly(tmp_path: Path) -> None:
    (tmp_path / PATH).write_text("# the first run's report, maybe annotated\n")
    nothing_new = (FileResult("DiT4DiT/training/train.py", Status.UNCHANGED),)
    result = _step(tmp_path, nothing_new)
    assert result.status is Status.UNCHANGED and not result.warnings


def test_a_later_run_with_news_keeps_the_report_and_warns(tmp_path: Path) -> None:
    (tmp_path / PATH).write_text("# the first run's report, maybe annotated\n")
    result = _step(tmp_path)
    assert result.status is Status.UNCHANGED and result.new_data is None
    (warning,) = result.warnings
    assert warning.code == "DIT094" and "kept as it is" in warning.message


def test_report_written_by_a_real_run(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    assert invoke(str(root), "--allow-no-vcs").exit_code == 0
    text = (root / PATH).read_text()
    assert "| `DiT4DiT/training/train.py` | 5 | NPU001 |" in text
    review = text.split("### Review a rewrite")[1].split("\n## ")[0]
    assert "| `DiT4DiT/config/robotwin/dit4dit_robotwin.yaml` | 1 | DIT092 |" in review
    assert "| `requirements-npu.txt` | 1 | DIT093 |" in review
    assert text.count("| created |") == 7


def test_loss_and_eval_maths_edits_are_listed_apart_from_the_device_port() -> None:
    from target_dit4dit.action_mask_slice import ActionMaskSlice
    from target_dit4dit.eval_action_alignment import EvalActionAlignment
    from target_dit4dit.migration_report import MATHS_CODES

    assert (ActionMaskSlice.code, EvalActionAlignment.code) == MATHS_CODES
    assert ActionMaskSlice.safety is EvalActionAlignment.safety is Safety.REVIEW
    mask = Finding.change(
        "DiT4DiT/model/framework/DiT4DiT.py", 60, 9, "DIT003", "action_mask sliced", True
    )
    results = (
        *RESULTS,
        FileResult("DiT4DiT/model/framework/DiT4DiT.py", Status.CHANGED, findings=(mask,)),
    )
    text = render(results)
    head, rest = text.split("## Edits to the model's loss and eval maths")
    assert "## Edits that need review" not in head, "the maths section comes first"
    maths = rest.split("\n## ")[0]
    assert "| `DiT4DiT/model/framework/DiT4DiT.py` | 60 | DIT003 | action_mask sliced |" in maths
    port = rest.split("\n## ", 1)[1]
    assert "DIT003" not in port, "the device port's tables leave it out"
    assert "fp32 region" in port
    summary = text.split("**Summary:**")[1].split("\n")[0]
    assert "3 edits" in summary, "the summary still counts every edit"


def test_the_report_counts_the_run_that_wrote_it_and_itself(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    result = invoke(str(root), "--allow-no-vcs", "--no-cache", "-j1")
    assert result.exit_code == 0, result.output
    last = result.stderr.strip().splitlines()[-1]
    assert "8 files created" in last, "the generated files and this report"
    text = (root / PATH).read_text(encoding="utf-8")
    assert f"**Summary:** {last} (counting this file, which the run created)." in text


def test_the_installed_command_writes_the_same_counts(tmp_path: Path) -> None:
    if installed_migrate() is None:
        pytest.skip("the migrate command is not installed")
    root = checkout(tmp_path)
    done = run_installed(str(root), "--allow-no-vcs", "--no-cache", "-j1")
    assert done.returncode == 0, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert f"**Summary:** {last} (counting" in (root / PATH).read_text(encoding="utf-8")
