"""The dry run's unified diff: a diff that turns the old text into the new one, whose hunks
keep an unchanged line as context even where difflib alone would call it junk."""

from __future__ import annotations

import random
import re

import pytest

from migrator.core.model import FileResult, Status
from migrator.output.diff import _unified_lines, unified

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _patched(old: list[str], diff: list[str]) -> list[str]:
    """`old` with `diff`'s hunks applied, each context and removed line checked against it,
    and each hunk's counts against its lines."""
    out: list[str] = []
    at = 0
    index = 2
    while index < len(diff):
        found = _HUNK.match(diff[index])
        assert found is not None, diff[index]
        start, length = int(found.group(1)), int(found.group(2) or 1)
        new_length = int(found.group(4) or 1)
        start = start - 1 if length else start
        assert start >= at
        out += old[at:start]
        at = start
        index += 1
        seen_old = seen_new = 0
        while index < len(diff) and not diff[index].startswith("@@"):
            sign, line = diff[index][0], diff[index][1:]
            if sign in " -":
                assert old[at] == line
                at += 1
                seen_old += 1
            if sign in " +":
                out.append(line)
                seen_new += 1
            index += 1
        assert (seen_old, seen_new) == (length, new_length)
    return out + old[at:]


def _edited(rng: random.Random, old: list[str], alphabet: list[str]) -> list[str]:
    new = list(old)
    for _ in range(rng.randint(0, 8)):
        where = rng.randint(0, len(new))
        kind = rng.random()
        if kind < 0.4 and where < len(new):
            new[where] = rng.choice(alphabet)
        elif kind < 0.7:
            new[where:where] = [rng.choice(alphabet) for _ in range(rng.randint(1, 3))]
        else:
            del new[where : where + rng.randint(1, 3)]
    return new


@pytest.mark.parametrize("seed", range(120))
def test_the_diff_turns_the_old_text_into_the_new(seed: int) -> None:
    rng = random.Random(seed)
    # Few distinct lines (blank lines, brackets) among many unique ones, as in code.
    alphabet = ["\n", ")\n", "    pass\n", *(f"x{n} = {n}\n" for n in range(rng.randint(1, 400)))]
    old = [rng.choice(alphabet) for _ in range(rng.randint(0, 300))]
    new = _edited(rng, old, alphabet) if seed % 5 else [rng.choice(alphabet) for _ in old]
    diff = list(_unified_lines(old, new, "a/f.py", "b/f.py"))
    if old == new:
        assert diff == []
        return
    assert diff[:2] == ["--- a/f.py\n", "+++ b/f.py\n"]
    assert _patched(old, diff) == new


def test_two_edits_either_side_of_a_blank_line_keep_the_blank_line_as_context() -> None:
    # Over 200 lines, a third of them blank: difflib alone treats the blank line as junk,
    # which never anchors a match, and shows it removed and added again between the edits.
    old = []
    for index in range(150):
        old += [f"def f{index}():\n", f"    return torch.ones({index}).cuda()\n", "\n"]
    new = list(old)
    new[301] = "    return torch.ones(100).npu()\n"
    new[303] = "def g101():\n"
    diff = list(_unified_lines(old, new, "a/m.py", "b/m.py"))
    assert diff[2:] == [
        "@@ -299,9 +299,9 @@\n",
        "     return torch.ones(99).cuda()\n",
        " \n",
        " def f100():\n",
        "-    return torch.ones(100).cuda()\n",
        "+    return torch.ones(100).npu()\n",
        " \n",
        "-def f101():\n",
        "+def g101():\n",
        "     return torch.ones(101).cuda()\n",
        " \n",
        " def f102():\n",
    ]
    assert _patched(old, diff) == new


def test_a_new_file_diffs_against_dev_null_and_a_missing_newline_is_marked() -> None:
    created = FileResult("m.py", Status.CREATED, old_data=None, new_data=b"import torch_npu\nx = 1")
    assert unified(created, "m.py") == (
        "--- /dev/null\n+++ b/m.py\n@@ -0,0 +1,2 @@\n+import torch_npu\n+x = 1\n"
        "\\ No newline at end of file\n"
    )
