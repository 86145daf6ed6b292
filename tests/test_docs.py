"""The README is kept true: generated rule table, and .ci/run runs the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from migrator.output.docs import render

ROOT = Path(__file__).resolve().parents[1]


def test_readme_rule_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert render(readme) == readme, "run: python -m migrator.output.docs"


def _setup_commands(readme: str) -> list[str]:
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```(?:sh|bash)\n(.+?)\n```", section, flags=re.MULTILINE | re.DOTALL)


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _setup_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(commands) == 2, commands
    assert "migrate examples/cuda_trainer" in commands[0] and "--dry-run" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    test_command = _setup_commands((ROOT / "README.md").read_text(encoding="utf-8"))[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci


def test_readme_usage_table_documents_every_flag() -> None:
    import click

    from migrator.cli import migrate_command

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Usage", 1)[1].split("### ", 1)[0]
    documented = set(re.findall(r"`(--?[a-z][a-z0-9-]*)", table))
    flags = {
        name
        for param in migrate_command.params
        if isinstance(param, click.Option) and not param.hidden
        for name in [*param.opts, *param.secondary_opts]
        if name.startswith("--")
    }
    flags.add("--help")
    missing = sorted(flags - documented)
    assert not missing, f"flags missing from the README usage table: {missing}"


def test_the_pre_commit_snippet_pins_a_rev_a_clean_clone_has() -> None:
    """A tag in the snippet would fail in a clone without tags: the rev is a placeholder
    for a commit hash, with the command that prints one, and try-repo needs no rev."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### pre-commit", 1)[1].split("\n### ", 1)[0]
    revs = re.findall(r"^\s*rev:\s*(\S+)", section, flags=re.MULTILINE)
    assert revs == ["COMMIT_SHA"]
    assert "git ls-remote" in section and "pre-commit try-repo" in section
    assert "v0.1.0" not in section


def test_the_generator_has_help_and_one_error_line_for_a_bad_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from migrator.output.docs import main

    with pytest.raises(SystemExit) as shown:
        main(["--help"])
    assert shown.value.code == 0
    assert "usage: python -m migrator.output.docs" in capsys.readouterr().out
    with pytest.raises(SystemExit) as failed:
        main([str(tmp_path / "missing.md")])
    assert failed.value.code == 2
    assert capsys.readouterr().err.count("error:") == 1
    (tmp_path / "README.md").write_text("no markers\n", encoding="utf-8")
    with pytest.raises(SystemExit) as failed:
        main([str(tmp_path / "README.md")])
    assert failed.value.code == 2 and "marker" in capsys.readouterr().err


def test_the_generator_as_a_module_prints_its_help() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "migrator.output.docs", "--help"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0 and "usage:" in done.stdout, done.stderr


def test_list_rules_says_what_the_readme_table_says() -> None:
    """Each rule's row: the same code, name, fix, safety and summary in both; the
    profile steps, which the table leaves out, are documented elsewhere in the README."""
    from tests.helpers import invoke

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = {}
    for match in re.finditer(r'^\| <a id="[a-z0-9]+"></a>(\w+) \| `([\w-]+)` \| (.+)$', readme,
                             flags=re.MULTILINE):  # fmt: skip
        fix, safety, _, summary = match.group(3).rstrip(" |").split(" | ", 3)
        table[match.group(1)] = (match.group(2), fix, safety, summary.replace("\\|", "|"))
    listed = {}
    for line in invoke("--list-rules").stdout.splitlines()[1:]:
        found = re.match(
            r"(\w+\d{3})\s+(\S+)\s+(always|sometimes|never)\s+(needs review|safe|step|-)\s+"
            r"(\S+)\s+(.+)$",
            line,
        )
        if found:
            code, name, fix, safety, _, summary = found.groups()
            listed[code] = (name, fix, safety, summary)
    steps = {code for code, row in listed.items() if row[2] == "step"}
    assert {code: row for code, row in listed.items() if code not in steps} == table
    for code in steps:
        assert re.search(rf"\b{code}\b", readme), f"the profile step {code} is documented"
