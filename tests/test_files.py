"""Files, safely: bad input is reported and left byte-identical; encodings, line endings,
final newlines and permissions survive; writes are atomic; the walk skips what it should."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from migrator.formats import sources
from tests.helpers import AUTOCAST, MIGRATED, commit_all, git_repo, invoke

BAD_INPUTS = {
    "python2_syntax": (
        b'import torch\nprint "autocast on cuda"\nwith torch.autocast("cuda"):\n    pass\n'
    ),
    "conflict_markers": (
        b"import torch\n<<<<<<< HEAD\nwith torch.autocast('cuda'):\n=======\n"
        b"with torch.autocast('cpu'):\n>>>>>>> branch\n    pass\n"
    ),
    "undecodable_bytes": (
        b'import torch\nname = "\xff\xfe cuda"\nwith torch.autocast("cuda"):\n    pass\n'
    ),
    "null_bytes": b'import torch\nwith torch.autocast("cuda"):\n    pass\x00\n',
    # Python rejects source in an encoding that is not ASCII-compatible.
    "utf16_cookie": b'# coding: utf-16\nimport torch\nwith torch.autocast("cuda"):\n    pass\n',
    # Valid Python that Python and LibCST parse, but whose tree (1,500 nested unary
    # minus signs) LibCST's code generation and visitors recurse through past Python's limit.
    "deeply_nested_operators": (
        b'import torch\ny = torch.autocast("cuda", x=' + b"-" * 1500 + b"1)\n"
    ),
}
EXPECTED_MESSAGE = {
    "python2_syntax": "(line 2)",
    "conflict_markers": "(line 2)",
    "undecodable_bytes": "cannot decode as utf-8: byte 0xff (line 2)",
    "null_bytes": "contains null bytes (line 3)",
    "utf16_cookie": "encoding problem: utf-16 (Python cannot read source in it) (line 1)",
    "deeply_nested_operators": "nesting too deep to migrate",
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_reported_and_left_byte_identical(tmp_path: Path, case: str) -> None:
    root = tmp_path / "p"
    root.mkdir()
    bad = root / "bad.py"
    bad.write_bytes(BAD_INPUTS[case])
    good = root / "good.py"
    good.write_text(AUTOCAST)
    result = invoke(str(root), "--allow-no-vcs")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert "bad.py" in errors[0] and EXPECTED_MESSAGE[case] in errors[0]
    assert bad.read_bytes() == BAD_INPUTS[case]
    assert good.read_text() == MIGRATED, "the run carries on past a bad file"
    assert "1 file failed" in result.stderr


def test_brackets_nested_to_near_pythons_limit_are_migrated(tmp_path: Path) -> None:
    # 180 nested brackets (Python's parser allows 200): the edit pass's own walk recurses
    # less per level than LibCST's visitors, which gave up here.
    nested = "[" * 180 + "]" * 180
    file = tmp_path / "deep.py"
    file.write_text(f'import torch\ny = torch.autocast("cuda", x=[{nested}])\n')
    result = invoke(str(file), "--allow-no-vcs")
    assert result.exit_code == 0, result.stderr
    assert file.read_text() == f'import torch\ny = torch.autocast("npu", x=[{nested}])\n'


def test_deeply_nested_blocks_are_migrated(tmp_path: Path) -> None:
    # 95 nested `if` blocks (Python allows 100): a finding's position comes from its own
    # statement's code generation, which does not recurse through the blocks around it.
    depth = 95
    head = "import torch\n" + "".join("    " * i + "if x:\n" for i in range(depth))
    file = tmp_path / "deep.py"
    file.write_text(head + "    " * depth + 'y = torch.autocast("cuda")\n')
    result = invoke(str(file), "--allow-no-vcs")
    assert result.exit_code == 0, result.stderr
    assert file.read_text() == head + "    " * depth + 'y = torch.autocast("npu")\n'
    assert f"deep.py:{depth + 2}:{4 * depth + 5}: NPU001" in result.stderr


def test_pep263_cookie_encoding_is_kept(tmp_path: Path) -> None:
    source = '# -*- coding: latin-1 -*-\nimport torch\nname = "café"\n' + AUTOCAST[13:]
    file = tmp_path / "legacy.py"
    file.write_bytes(source.encode("latin-1"))
    assert invoke(str(file), "--allow-no-vcs").exit_code == 0
    data = file.read_bytes()
    assert "café".encode("latin-1") in data
    assert b'"npu"' in data
    data.decode("latin-1")


def test_utf8_bom_crlf_and_missing_final_newline_are_kept(tmp_path: Path) -> None:
    text = AUTOCAST.rstrip("\n").replace("\n", "\r\n")
    file = tmp_path / "win.py"
    file.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert invoke(str(file), "--allow-no-vcs").exit_code == 0
    expected = b"\xef\xbb\xbf" + MIGRATED.rstrip("\n").replace("\n", "\r\n").encode()
    assert file.read_bytes() == expected


def test_permission_bits_are_kept(tmp_path: Path) -> None:
    file = tmp_path / "run.py"
    file.write_text("#!/usr/bin/env python\n" + AUTOCAST)
    file.chmod(0o751)
    assert invoke(str(file), "--allow-no-vcs").exit_code == 0
    assert stat.S_IMODE(file.stat().st_mode) == 0o751
    assert '"npu"' in file.read_text()


def test_interrupted_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "a.py"
    file.write_text(AUTOCAST)

    def fail(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sources.os, "replace", fail)
    with pytest.raises(KeyboardInterrupt):
        sources.write_atomic(file, MIGRATED.encode())
    assert file.read_text() == AUTOCAST
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"], "no temporary file left"


def test_walk_skips_venvs_caches_and_build_output(tmp_path: Path) -> None:
    root = tmp_path / "p"
    for folder in ("venv", "node_modules/x", "__pycache__", "build", "src"):
        (root / folder).mkdir(parents=True)
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr\n")
    for folder in ("venv", "node_modules/x", "__pycache__", "build", "src"):
        (root / folder / "m.py").write_text(AUTOCAST)
    result = invoke(str(root), "--check", "--ignore", "NPU094")
    assert "1 file scanned" in result.stderr
    assert (root / "venv" / "m.py").read_text() == AUTOCAST


def test_gitignored_files_are_left_alone(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    (root / ".gitignore").write_text("generated/\n*.gen.py\n")
    (root / "generated").mkdir()
    (root / "generated" / "m.py").write_text(AUTOCAST)
    (root / "x.gen.py").write_text(AUTOCAST)
    (root / "kept.py").write_text(AUTOCAST)
    commit_all(root)
    assert invoke(str(root), "--allow-no-vcs").exit_code == 0
    assert (root / "kept.py").read_text() == MIGRATED
    assert (root / "generated" / "m.py").read_text() == AUTOCAST
    assert (root / "x.gen.py").read_text() == AUTOCAST


def test_symlinks_are_not_followed_out_of_path(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.py").write_text(AUTOCAST)
    root = tmp_path / "p"
    root.mkdir()
    os.symlink(outside / "victim.py", root / "link.py")
    os.symlink(outside, root / "linked_dir")
    (root / "own.py").write_text(AUTOCAST)
    result = invoke(str(root), "--allow-no-vcs", "--verbose")
    assert result.exit_code == 0
    assert (outside / "victim.py").read_text() == AUTOCAST
    assert (root / "own.py").read_text() == MIGRATED
    assert "link.py: skipped (symbolic link" in result.stderr
    assert "linked_dir: skipped (symbolic link to a folder" in result.stderr


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a",
        "a\n",
        "a\r\nb\rc\n\nd",
        "\r\r\n\n",
        # Characters `str.splitlines` breaks at and Python's tokenizer does not.
        "x = 1\x0c\ny = '\x0b'\n",
        "s = '\x1c\x1d\x1e'\r\nt = '\x85'\n",
        "u = '\u2028\u2029'\nv = 2",
    ],
)
def test_lines_split_only_where_pythons_tokenizer_ends_a_line(text: str) -> None:
    expected = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)
    assert sources.split_lines(text) == expected
    assert "".join(sources.split_lines(text)) == text
