"""The migrate command: modes, flags, output and exit codes."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import AUTOCAST, MIGRATED, commit_all, git_repo, invoke


def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "train.py").write_text(AUTOCAST)
    (root / "pkg" / "util.py").write_text("def f():\n    return 1\n")
    return root


def test_dry_run_prints_diff_and_change_lines_and_writes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = invoke(str(root), "--dry-run")
    assert result.exit_code == 1
    assert '-    with torch.autocast("cuda"):' in result.stdout
    assert '+    with torch.autocast("npu"):' in result.stdout
    assert "train.py:5:10: NPU001 autocast device" in result.stderr
    # The generic profile's notes (NPU094) would be created: shown, counted, not written.
    assert "+++ b/NPU_MIGRATION.md" in result.stdout
    assert (
        "3 files scanned, 1 file would change, 1 file would be created, 1 edit (0 need review)"
        in (result.stderr)
    )
    assert (root / "pkg" / "train.py").read_text() == AUTOCAST
    assert not (root / "NPU_MIGRATION.md").exists()


def test_in_place_rewrites_and_second_run_changes_nothing(tmp_path: Path) -> None:
    root = project(tmp_path)
    first = invoke(str(root), "--allow-no-vcs")
    assert first.exit_code == 0
    assert (root / "pkg" / "train.py").read_text() == MIGRATED
    second = invoke(str(root), "--check")
    assert second.exit_code == 0
    assert "0 files would change" in second.stderr


def test_check_exits_one_when_changes_pending(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = invoke(str(root), "--check")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert (root / "pkg" / "train.py").read_text() == AUTOCAST


def test_out_writes_a_migrated_copy_and_leaves_source(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "README.txt").write_text("notes\n")
    out = tmp_path / "out"
    result = invoke(str(root), "--out", str(out))
    assert result.exit_code == 0
    assert (out / "pkg" / "train.py").read_text() == MIGRATED
    assert (out / "pkg" / "util.py").read_text() == "def f():\n    return 1\n"
    assert (out / "README.txt").read_text() == "notes\n"
    assert (root / "pkg" / "train.py").read_text() == AUTOCAST


def test_out_inside_path_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = invoke(str(root), "--out", str(root / "migrated"))
    assert result.exit_code == 2
    assert "must not be inside" in result.stderr
    assert not (root / "migrated").exists()


def test_out_that_is_not_empty_is_refused(tmp_path: Path) -> None:
    root = project(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    result = invoke(str(root), "--out", str(out))
    assert result.exit_code == 2
    assert "not empty" in result.stderr


def test_dirty_git_file_is_refused_unless_allowed(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    (root / "train.py").write_text("import torch\n")
    commit_all(root)
    (root / "train.py").write_text(AUTOCAST)
    refused = invoke(str(root))
    assert refused.exit_code == 2
    assert "uncommitted changes" in refused.stderr and "train.py" in refused.stderr
    assert (root / "train.py").read_text() == AUTOCAST
    allowed = invoke(str(root), "--allow-dirty")
    assert allowed.exit_code == 0
    assert (root / "train.py").read_text() == MIGRATED


def test_clean_git_tree_is_rewritten(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    (root / "train.py").write_text(AUTOCAST)
    commit_all(root)
    assert invoke(str(root)).exit_code == 0
    assert (root / "train.py").read_text() == MIGRATED


def test_select_and_ignore_by_prefix(tmp_path: Path) -> None:
    root = project(tmp_path)
    ignored = invoke(str(root), "--check", "--ignore", "NPU001")
    assert ignored.exit_code == 0
    selected = invoke(str(root), "--check", "--select", "NPU0")
    assert selected.exit_code == 1
    unknown = invoke(str(root), "--check", "--select", "XYZ9")
    assert unknown.exit_code == 2
    assert "unknown rule code or prefix 'XYZ9'" in unknown.stderr


def test_list_rules_and_explain() -> None:
    listed = invoke("--list-rules")
    assert listed.exit_code == 0
    assert "NPU001" in listed.stdout and "autocast-device" in listed.stdout
    explained = invoke("--explain", "npu001")
    assert explained.exit_code == 0
    assert "Why" in explained.stdout and "Before:" in explained.stdout
    unknown = invoke("--explain", "NPU999")
    assert unknown.exit_code == 2
    assert "unknown rule code" in unknown.stderr


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke(str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "no such file or folder" in result.stderr


def test_json_and_markdown_reports(tmp_path: Path) -> None:
    root = project(tmp_path)
    report = tmp_path / "report.json"
    invoke(str(root), "--dry-run", "--report", str(report))
    data = json.loads(report.read_text())
    assert data["summary"]["files_changed"] == 1
    entry, notes = data["files"]
    assert entry["path"] == "pkg/train.py"
    assert (notes["path"], notes["status"]) == ("NPU_MIGRATION.md", "would be created")
    assert entry["changes"][0]["code"] == "NPU001"
    assert entry["changes"][0]["line"] == 5
    markdown = tmp_path / "report.md"
    invoke(str(root), "--dry-run", "--report", str(markdown))
    text = markdown.read_text()
    assert "# NPU migration report" in text and "`pkg/train.py` | 5 | NPU001" in text


def test_sarif_report_lists_review_edits(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text(
        'import torch\nwith torch.autocast("cuda", dtype=torch.float32):\n    pass\n'
    )
    sarif = tmp_path / "r.sarif"
    invoke(str(root), "--dry-run", "--report", str(sarif))
    data = json.loads(sarif.read_text())
    (run,) = data["runs"]
    (found,) = run["results"]
    assert found["ruleId"] == "NPU001"
    assert found["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert run["tool"]["driver"]["rules"][0]["id"] == "NPU001"


def test_single_file_path(tmp_path: Path) -> None:
    file = tmp_path / "one.py"
    file.write_text(AUTOCAST)
    result = invoke(str(file), "--allow-no-vcs")
    assert result.exit_code == 0
    assert file.read_text() == MIGRATED


def test_quiet_prints_only_the_summary(tmp_path: Path) -> None:
    root = project(tmp_path)
    result = invoke(str(root), "--dry-run", "--quiet")
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_jobs_give_the_same_output(tmp_path: Path, jobs: str) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for index in range(40):
        (root / f"m{index:02d}.py").write_text(AUTOCAST if index % 3 == 0 else "x = 1\n")
    result = invoke(str(root), "--dry-run", "--jobs", jobs, "--ignore", "NPU094")
    assert result.exit_code == 1
    assert "40 files scanned, 14 files would change" in result.stderr
    files = [line for line in result.stdout.splitlines() if line.startswith("+++ ")]
    assert files == sorted(files)


def test_installed_command_runs_in_a_subprocess(tmp_path: Path) -> None:
    root = project(tmp_path)
    exe = shutil.which("migrate", path=os.path.dirname(sys.executable))
    assert exe is not None, "the console script is not installed next to this Python"
    done = subprocess.run(
        [exe, str(root), "--dry-run"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 1
    assert '+    with torch.autocast("npu"):' in done.stdout
    module = subprocess.run(
        [sys.executable, "-m", "migrator", "--version"], capture_output=True, text=True, check=False
    )
    assert module.returncode == 0 and "npu-migrator" in module.stdout


def test_help_says_a_bare_word_is_a_command_and_dot_slash_a_folder() -> None:
    result = invoke("--help")
    assert "'migrate ./run' migrates a folder named 'run'" in " ".join(result.stdout.split())


def test_a_folder_named_like_a_command_is_migrated_with_dot_slash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "train.py").write_text(AUTOCAST)
    monkeypatch.chdir(tmp_path)
    result = invoke("./run", "--dry-run")
    assert result.exit_code == 1, result.output
    assert '+    with torch.autocast("npu"):' in result.stdout
    assert invoke("run", "train.py").exit_code == 2, "the bare word is the run command"


def test_importing_the_cli_loads_no_engine_rules_or_libcst() -> None:
    code = (
        "import sys, migrator.cli\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('libcst', 'rules', 'rich')\n"
        "         or m.startswith(('migrator.engine.registry', 'migrator.engine.files'))]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def _modules_after(*args: str) -> list[str]:
    """The top-level packages and heavy modules a `migrate` run in a fresh process loaded."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['migrate', *{list(args)!r}]\n"
        "try:\n"
        "    runpy.run_module('migrator', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('libcst', 'libcst.matchers', 'libcst.codemod', 'ruamel.yaml', 'rich',\n"
        "         'rules', 'tomlkit', 'migrator.engine.files', 'migrator.output',\n"
        "         'migrator.formats.notebook')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: list[str] = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    return found


def test_version_imports_no_heavy_module() -> None:
    assert _modules_after("--version") == []


def test_a_run_that_adds_no_import_and_reads_no_yaml_skips_matchers_and_yaml(
    tmp_path: Path,
) -> None:
    (tmp_path / "train.py").write_text(AUTOCAST)
    loaded = _modules_after(str(tmp_path), "--dry-run", "--no-cache")
    assert "libcst" in loaded, "the run must have used LibCST"
    assert not {"libcst.matchers", "libcst.codemod", "ruamel.yaml", "rich"} & set(loaded)


def test_file_names_are_shown_as_relpath_shows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_display` names a file as `os.path.relpath` from the working directory does when
    the directory holds it, else by its path, wherever the directory is."""
    import os

    from migrator.cli import _display

    def expected(root: Path, rel: str) -> str:
        full = root / rel
        shown = os.path.relpath(full)
        return str(full) if shown.startswith("..") else shown

    project = tmp_path / "work" / "project"
    (project / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "..dots" / "inner").mkdir(parents=True)
    rels = ["a.py", "pkg/b.py", "pkg/sub/c.py", ".", "pkg/../a.py", "./a.py", "pkg//b.py"]
    rels += ["..x.py", "...py", "..dir/a.py", "pkg/..y.py"]
    places = [tmp_path, project.parent, project, project / "pkg", project / "pkg" / "sub"]
    # A folder whose name starts with "..", as the working directory and above a root.
    monkeypatch.chdir(tmp_path)
    for rel in rels:
        root = tmp_path / "..dots" / "inner"
        assert _display(root, rel) == expected(root, rel), (root, rel)
    for cwd in [*places, tmp_path / "elsewhere"]:
        monkeypatch.chdir(cwd)
        for root in [project, Path(os.path.relpath(project)), project / "pkg"]:
            for rel in rels:
                assert _display(root, rel) == expected(root, rel), (cwd, root, rel)
    monkeypatch.chdir(project)
    assert _display(Path("."), "pkg/b.py") == "pkg/b.py"
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert _display(project, "a.py") == str(project / "a.py")
