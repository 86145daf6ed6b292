"""Habits users of ruff and black bring: typo hints, warnings that are not hidden behind -v."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from migrator import cli
from tests.helpers import AUTOCAST, installed_migrate, invoke, run_installed


def one_file(folder: Path, text: str, name: str = "a.py") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


MISTYPED = 'import torch\nwith torch.autocast("cuda"):  # migrate: ignore[NPU0l1]\n    pass\n'


def test_a_suppression_naming_an_unknown_code_warns_without_verbose(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", MISTYPED)
    result = invoke(str(root), "--check")
    assert (
        "a.py:2: warning: migrate: ignore names unknown code 'NPU0L1' (did you mean 'NPU011'?);"
        " it suppresses nothing"
    ) in result.stderr
    known = one_file(tmp_path / "q", MISTYPED.replace("NPU0l1", "NPU050"))
    assert "unknown code" not in invoke(str(known), "--check").stderr, "a known code is quiet"


def test_a_mistyped_select_code_suggests_the_closest(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", AUTOCAST)
    result = invoke(str(root), "--check", "--select", "NUP001")
    assert result.exit_code == cli.EXIT_ERROR
    assert "unknown rule code or prefix 'NUP001' (did you mean 'NPU001'?)" in result.stderr
    ignored = invoke(str(root), "--check", "--ignore", "NPU0O1")
    assert "(did you mean 'NPU001'?)" in ignored.stderr, "O read as 0"


@pytest.mark.skipif(installed_migrate() is None, reason="the console script is not installed")
def test_the_installed_command_warns_about_an_unknown_suppression(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", MISTYPED)
    done = run_installed(str(root), "--check")
    assert done.returncode == cli.EXIT_PENDING
    assert "names unknown code 'NPU0L1'" in done.stderr


def test_notebook_lines_the_rules_cannot_read_that_name_cuda_warn_by_default(
    tmp_path: Path,
) -> None:
    import nbformat

    book = nbformat.v4.new_notebook()
    book.cells = [
        nbformat.v4.new_code_cell("%%time\nx = torch.randn(2).cuda()"),
        nbformat.v4.new_code_cell("import torch\n!nvidia-smi\ny = 1"),
        nbformat.v4.new_code_cell("%%time\nx = 1"),
        nbformat.v4.new_code_cell("!ls"),
    ]
    (tmp_path / "p").mkdir()
    nbformat.write(book, str(tmp_path / "p" / "nb.ipynb"))
    result = invoke(str(tmp_path / "p"), "--check")
    warned = [line for line in result.stderr.splitlines() if "warning: cell" in line]
    assert [line.split("nb.ipynb: ", 1)[1] for line in warned] == [
        "warning: cell 1:2: a %%time cell magic is left alone but names CUDA ('cuda'): "
        "migrate it by hand",
        "warning: cell 2:2: an IPython line is left alone but names CUDA ('nvidia-smi'): "
        "migrate it by hand",
    ]
    assert "warning: cell" not in invoke(str(tmp_path / "p"), "--check", "-q").stderr
    verbose = invoke(str(tmp_path / "p"), "--check", "-v").stderr
    assert verbose.count("warning: cell 1:2") == 1, "shown once with --verbose too"


WARNED = AUTOCAST + "import flash_attn\n"


def test_json_output_replaces_the_diff_on_stdout_with_relative_paths(tmp_path: Path) -> None:
    import json

    root = one_file(tmp_path / "p" / "pkg", WARNED).parent
    result = invoke(str(root), "--dry-run", "--output-format", "json")
    assert result.exit_code == cli.EXIT_PENDING
    found = json.loads(result.stdout)
    assert [(f["code"], f["kind"], f["path"], f["fixed"]) for f in found] == [
        ("NPU001", "edit", "pkg/a.py", False),
        ("NPU050", "warning", "pkg/a.py", False),
    ], "a dry run fixes nothing: its edit is pending (its `fix` says what it would do)"
    assert found[0]["location"] == {"line": 5, "column": 10}
    assert found[0]["end_location"] == {"line": 5}
    lines = invoke(str(root), "--check", "--output-format", "json-lines").stdout.splitlines()
    assert [json.loads(line)["code"] for line in lines] == ["NPU001", "NPU050"]


def test_github_output_is_workflow_annotations(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", WARNED)
    result = invoke(str(root), "--check", "--output-format", "github")
    lines = result.stdout.splitlines()
    assert (
        lines[0] == '::notice file=a.py,line=5,col=10,title=NPU001::autocast device "cuda" -> "npu"'
    )
    assert lines[1].startswith(
        "::warning file=a.py,line=7,col=1,title=NPU050::import of flash_attn"
    )


def test_sarif_output_on_stdout_is_the_report_document(tmp_path: Path) -> None:
    import json

    root = one_file(tmp_path / "p", WARNED)
    result = invoke(str(root), "--check", "--output-format", "sarif")
    document = json.loads(result.stdout)
    assert document["version"] == "2.1.0"


def test_machine_formats_are_usage_errors_where_stdout_carries_something_else(
    tmp_path: Path,
) -> None:
    root = one_file(tmp_path / "p", AUTOCAST)
    stdin = invoke("-", "--output-format", "json")
    assert stdin.exit_code == cli.EXIT_ERROR
    assert "stdout carries the code; use --report FILE" in stdin.stderr
    both = invoke(str(root), "--diff", "--output-format", "json")
    assert both.exit_code == cli.EXIT_ERROR


def test_diff_writes_nothing_and_prints_the_diff_also_with_check(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", AUTOCAST)
    alone = invoke(str(root), "--diff")
    assert alone.exit_code == cli.EXIT_PENDING
    assert '+    with torch.autocast("npu"):' in alone.stdout
    checked = invoke(str(root), "--check", "--diff")
    assert checked.exit_code == cli.EXIT_PENDING and "+++ b/" in checked.stdout
    assert invoke(str(root), "--check").stdout == "", "--check alone prints no diff"
    assert (root / "a.py").read_text() == AUTOCAST


def test_statistics_count_each_code_fixable_or_not(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", WARNED + "import flash_attn as fa\n")
    result = invoke(str(root), "--check", "--statistics")
    assert result.stdout.splitlines() == [
        "2  NPU050  [not fixable]  flash-attn",
        "1  NPU001  [fixable]  autocast-device",
    ]


def test_exit_zero_and_fail_on_warning(tmp_path: Path) -> None:
    pending = one_file(tmp_path / "p", AUTOCAST)
    assert invoke(str(pending), "--check", "--exit-zero").exit_code == cli.EXIT_OK
    warned_only = one_file(tmp_path / "w", "import flash_attn\n")
    assert invoke(str(warned_only), "--check").exit_code == cli.EXIT_OK
    failed = invoke(str(warned_only), "--check", "--fail-on-warning")
    assert failed.exit_code == cli.EXIT_PENDING
    bad = one_file(tmp_path / "bad", "x.cuda(:\n")
    assert invoke(str(bad), "--check", "--exit-zero").exit_code == cli.EXIT_ERROR


def test_colour_follows_the_flag_then_no_color_then_force_color(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = one_file(tmp_path / "p", WARNED.replace('"cuda"', '"cuda", dtype=x'))
    yellow = "\x1b[33m\x1b[1mwarning:\x1b[0m"
    assert yellow in invoke(str(root), "--check", "--color", "always").stderr
    assert "\x1b[" not in invoke(str(root), "--check").stderr, "no terminal: no colour"
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert yellow in invoke(str(root), "--check").stderr
    assert "\x1b[" not in invoke(str(root), "--check", "--color", "never").stderr
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in invoke(str(root), "--check").stderr, "NO_COLOR beats FORCE_COLOR"
    diff = invoke(str(root), "--dry-run", "--color", "always").stdout
    assert "\x1b[32m+" in diff


def test_config_file_and_isolated(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", AUTOCAST)
    (root / "pyproject.toml").write_text('[tool.migrate]\nignore = ["NPU001"]\n')
    assert invoke(str(root), "--check").exit_code == cli.EXIT_OK, "the project's table"
    assert invoke(str(root), "--check", "--isolated").exit_code == cli.EXIT_PENDING
    other = tmp_path / "migrate.toml"
    other.write_text('ignore = ["NPU0"]\n')
    given = invoke("--config", str(other), str(root), "--check", "-v")
    assert given.exit_code == cli.EXIT_OK
    assert f"config: {other}" in given.stderr
    assert invoke(str(root), "--isolated", "--config", str(other)).exit_code == cli.EXIT_ERROR
    missing = invoke(str(root), "--check", "--config", str(tmp_path / "nope.toml"))
    assert missing.exit_code == cli.EXIT_ERROR and "no such file (--config)" in missing.stderr


@pytest.mark.skipif(installed_migrate() is None, reason="the console script is not installed")
def test_the_installed_command_prints_github_annotations_and_honours_force_color(
    tmp_path: Path,
) -> None:
    import os
    import subprocess

    root = one_file(tmp_path / "p", WARNED)
    done = run_installed(str(root), "--check", "--output-format", "github")
    assert done.returncode == cli.EXIT_PENDING
    assert done.stdout.startswith("::notice file=a.py,line=5,col=10,title=NPU001::")
    script = installed_migrate()
    assert script is not None
    env = {**os.environ, "FORCE_COLOR": "1"}
    env.pop("NO_COLOR", None)
    coloured = subprocess.run(
        [str(script), str(root), "--check"], capture_output=True, text=True, env=env, check=False
    )
    assert "\x1b[33m\x1b[1mwarning:\x1b[0m" in coloured.stderr


@pytest.mark.skipif(installed_migrate() is None, reason="the console script is not installed")
def test_the_progress_bar_shows_elapsed_and_eta_on_a_terminal_only(tmp_path: Path) -> None:
    import os
    import select
    import subprocess

    root = tmp_path / "many"
    root.mkdir()
    for index in range(cli.PROGRESS_THRESHOLD + 5):
        (root / f"m{index:02}.py").write_text(AUTOCAST)
    script = installed_migrate()
    assert script is not None
    leader, follower = os.openpty()
    env = {**os.environ, "COLUMNS": "120", "TERM": "xterm"}
    done = subprocess.run(
        [str(script), str(root), "--check", "-j", "1", "--no-cache"],
        stdout=subprocess.PIPE, stderr=follower, env=env, check=False, timeout=120,
    )  # fmt: skip
    os.close(follower)
    seen = b""
    while select.select([leader], [], [], 0.5)[0]:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    assert done.returncode == cli.EXIT_PENDING
    text = seen.decode("utf-8", "replace")
    assert "migrating" in text and "eta" in text and "0:00:0" in text
    piped = run_installed(str(root), "--check", "-j", "1", "--no-cache")
    assert "migrating" not in piped.stderr and "eta" not in piped.stderr


def test_diff_hunks_name_the_enclosing_function_as_git_diff_does(tmp_path: Path) -> None:
    import shutil
    import subprocess

    body = "".join(f"        y = x + {index}\n" for index in range(10))
    before = (
        "import torch\n\n\nclass Trainer:\n    async def step(self, x):\n"
        + body
        + "        return x.cuda()\n"
    )
    root = one_file(tmp_path / "p", before, "t.py")
    diff = invoke(str(root), "--diff", "--ignore", "NPU094").stdout
    hunks = [line for line in diff.splitlines() if line.startswith("@@")]
    assert hunks == ["@@ -13,4 +13,4 @@ async def step(self, x):"]
    if shutil.which("git") is None:
        return
    (tmp_path / "after.py").write_text(before.replace(".cuda()", ".npu()"))
    (tmp_path / "before.py").write_text(before)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    attributes = tmp_path / ".gitattributes"
    attributes.write_text("*.py diff=python\n")
    reference = subprocess.run(
        ["git", "diff", "--no-index", "before.py", "after.py"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    assert [line for line in reference.splitlines() if line.startswith("@@")] == hunks


FIXTURE = Path(__file__).parent / "fixtures" / "report_run"


def test_safe_only_makes_no_edit_that_needs_review_and_reports_each(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "p"
    shutil.copytree(FIXTURE, root)
    default = invoke(str(root), "--check")
    assert "(2 need review)" in default.stderr.splitlines()[-1], "review edits by default"
    safe = invoke(str(root), "--diff", "--safe-only", "--ignore", "NPU094")
    assert safe.exit_code == cli.EXIT_PENDING
    assert "import torch_npu" not in safe.stdout, "NPU030's set-up needs review: not made"
    assert "HCCL_CONNECT_TIMEOUT" not in safe.stdout, "NPU100's timeout needs review: not made"
    assert '"npu"' in safe.stdout, "safe edits are still made"
    notes = [line for line in safe.stderr.splitlines() if "--safe-only" in line]
    assert len(notes) == 2 and all(" warning: " in line for line in notes)
    assert "(0 need review)" in safe.stderr.splitlines()[-1]
    assert (root / "train.py").read_text() == (FIXTURE / "train.py").read_text()


def test_safe_only_is_a_config_key_and_the_flag_overrides_it(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "p"
    shutil.copytree(FIXTURE, root)
    (root / "pyproject.toml").write_text("[tool.migrate]\nsafe-only = true\n")
    configured = invoke(str(root), "--check", "--ignore", "NPU094")
    assert configured.exit_code == cli.EXIT_PENDING, configured.output
    assert "(0 need review)" in configured.stderr.splitlines()[-1]
    assert sum("--safe-only" in line for line in configured.stderr.splitlines()) == 2
    overridden = invoke(str(root), "--check", "--ignore", "NPU094", "--no-safe-only")
    assert "(2 need review)" in overridden.stderr.splitlines()[-1], "the flag wins"
    (root / "pyproject.toml").write_text('[tool.migrate]\nsafe-only = "yes"\n')
    wrong = invoke(str(root), "--check")
    assert wrong.exit_code == cli.EXIT_ERROR
    assert "[tool.migrate] safe-only must be true or false, not a string" in wrong.stderr
    if installed_migrate() is not None:
        (root / "pyproject.toml").write_text("[tool.migrate]\nsafe-only = true\n")
        done = run_installed(str(root), "--check", "--ignore", "NPU094")
        assert "(0 need review)" in done.stderr.splitlines()[-1], done.stderr


def _apply(text: str, edits: list[dict[str, Any]]) -> str:
    """ruff's way: each edit's `content` replaces the original text from `location` up to
    `end_location` (1-based lines and columns), the last edit first."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(where: dict[str, int]) -> int:
        return starts[where["line"] - 1] + where["column"] - 1

    spans = sorted(
        ((offset(e["location"]), offset(e["end_location"]), e["content"]) for e in edits),
        reverse=True,
    )
    for start, end, content in spans:
        text = text[:start] + content + text[end:]
    return text


def _fixes(root: Path) -> dict[str, dict[str, Any]]:
    import json

    found = json.loads(invoke(str(root), "--check", "--output-format", "json").stdout)
    return {f["code"]: f["fix"] for f in found if f["kind"] == "edit"}


def test_json_fixes_carry_narrow_edits_an_editor_can_apply_one_by_one(tmp_path: Path) -> None:
    """A LibCST rule's edit is the span of the node it rewrote, not the whole line."""
    text = (
        "import torch\n\n\ndef step(m, x):\n"
        '    with torch.autocast("cuda"):\n        y = m(x)\n'
        "    return y.cuda()\n"
    )
    root = one_file(tmp_path / "p", text, "t.py")
    fixes = _fixes(root)
    assert fixes["NPU001"] == {
        "applicability": "safe",
        "edits": [
            {
                "content": "npu",
                "location": {"line": 5, "column": 26},
                "end_location": {"line": 5, "column": 30},
            }
        ],
    }
    one = _apply(text, fixes["NPU001"]["edits"])
    assert one == text.replace('autocast("cuda")', 'autocast("npu")'), "one fix alone"
    both = _apply(text, [*fixes["NPU001"]["edits"], *fixes["NPU011"]["edits"]])
    invoke(str(root), "--allow-no-vcs")
    assert both == (root / "t.py").read_text(), "all fixes give the migrated file"


def test_a_text_rules_json_edit_is_its_own_text_edit(tmp_path: Path) -> None:
    """A text rule's edit is the `TextEdit` it made: the variable's name alone."""
    text = "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0,1\nexport CUDA_LAUNCH_BLOCKING=1\n"
    root = one_file(tmp_path / "p", text, "run.sh")
    result = invoke(str(root), "--check", "--output-format", "json-lines")
    found = [json.loads(line) for line in result.stdout.splitlines()]
    visible, blocking = (f["fix"]["edits"] for f in found if f["code"] == "NPU100")
    assert visible == [
        {
            "content": "ASCEND_RT_VISIBLE_DEVICES",
            "location": {"line": 2, "column": 8},
            "end_location": {"line": 2, "column": 28},
        }
    ]
    assert _apply(text, visible) == text.replace("CUDA_VISIBLE", "ASCEND_RT_VISIBLE")
    assert _apply(text, blocking) == text.replace("CUDA_LAUNCH", "ASCEND_LAUNCH")
    invoke(str(root), "--allow-no-vcs")
    migrated = (root / "run.sh").read_text()
    assert _apply(text, [*visible, *blocking]) == migrated, "all give the migrated file"


def test_each_hunks_function_is_the_last_opened_above_it_in_any_order_of_hunks() -> None:
    from migrator.output.diff import _PYTHON_FUNCNAME, _Funcnames

    old = []
    for index in range(40):
        old.append(f"def f{index}(x):\n" if index % 7 == 0 else f"    y = {index}\n")
        old.append("class C:\n" if index == 20 else "\n")

    def above(start: int) -> str:
        for line in reversed(old[: max(start - 1, 0)]):
            found = _PYTHON_FUNCNAME.match(line.rstrip("\r\n"))
            if found is not None:
                return found.group(1).rstrip()
        return ""

    names = _Funcnames(old, python=True)
    # In order, as a diff's hunks come, then starting higher up again.
    starts = [1, 2, 3, 16, 16, 30, 42, 43, 80, 5, 29, 81]
    assert [names.above(start) for start in starts] == [above(start) for start in starts]
    assert {above(start) for start in starts} >= {"", "def f0(x):", "class C:", "def f14(x):"}
