"""NPU010's `LiteralOnly` (names every binding of which is a device literal) walks only the
statements that spell a name's last word; it answers as the walk of the whole file does."""

from __future__ import annotations

import ast
from pathlib import Path

import accelerate
import pytest

from rules.cuda_device_string import _BINDING_NODES, LiteralOnly, _target_key

# Bindings of every kind, spelt over lines, spaced, decorated, nested in expressions.
TRICKY = """\
import torch

device = "cuda"
other = "cuda"
other = pick()
self_device = torch.device("cuda")
spaced = ("cuda"
          if flag else "cpu")


class Model:
    def __init__(self, device):
        self . device = "cuda"
        self.kind = \\
            "cuda"
        self.place = torch.device(
            "cuda")

    @decorate(lambda place: place)
    def move(self, x):
        if (chosen := "cuda") == x:
            pass
        total = [kind for kind in ("cuda", "cpu")]
        with open("f") as handle:
            pass
        for index in range(3):
            pass
        self.count += 1
        return total, chosen, handle


packed = "cuda"
packed=pick()


def compare(self, x):
    return self.device == "cuda" or device == "cuda" or self.kind == "cuda"
"""


def _keys(tree: ast.Module) -> set[str]:
    keys: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            keys.add(node.arg)
        elif isinstance(node, _BINDING_NODES):
            for target in ast.walk(node):
                if isinstance(target, (ast.Name, ast.Attribute)):
                    key = _target_key(target)
                    if key is not None:
                        keys.add(key)
    return keys


def _same_as_whole_walk(text: str) -> int:
    """Each key answered alike by the pruned walk and by the whole walk (a text with a
    line ending in a lone carriage return is walked whole); the number of keys
    literal-only."""
    tree = ast.parse(text)
    pruned = LiteralOnly(tree, text)
    whole = LiteralOnly(tree, text + "#\r")
    found = 0
    for key in [*sorted(_keys(tree)), "absent", "self.absent"]:
        assert (key in pruned) == (key in whole), key
        found += key in pruned
    return found


def test_tricky_bindings_answer_as_the_whole_walk() -> None:
    assert _same_as_whole_walk(TRICKY) > 0
    # An identifier spelt in a form Python normalises (a fullwidth "o") binds `other2`.
    spelt = TRICKY + 'other2 = "cuda"\n\uff4fther2 = pick()  # café\n'
    assert "other2" not in LiteralOnly(ast.parse(spelt), spelt)
    assert _same_as_whole_walk(spelt) > 0
    tree = ast.parse(TRICKY)
    facts = LiteralOnly(tree, TRICKY)
    assert "self.device" in facts and "self.kind" in facts and "self.place" in facts
    assert "spaced" in facts and "self_device" in facts
    # A parameter, a second binding that is no literal, a walrus and loop targets.
    assert "device" not in facts and "other" not in facts and "packed" not in facts
    assert "index" not in facts and "kind" not in facts and "handle" not in facts
    assert "chosen" in facts


@pytest.mark.parametrize(
    "path",
    sorted(Path(accelerate.__file__).parent.rglob("*.py"))[::4],
    ids=lambda path: path.name,
)
def test_real_files_answer_as_the_whole_walk(path: Path) -> None:
    _same_as_whole_walk(path.read_text(encoding="utf-8"))
