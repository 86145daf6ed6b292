"""The fast path can never drop a change: on a whole real corpus (the installed accelerate
package, a CUDA-aware training library) it gives exactly the full LibCST path's output,
edits and warnings, file by file."""

from __future__ import annotations

from pathlib import Path

import accelerate
import pytest

from migrator import registry
from migrator.pyengine import migrate_python
from migrator.rule import PythonRule, RuleOptions
from migrator.sources import SourceError, decode_python
from migrator.target import NPU

CORPUS = Path(accelerate.__file__).parent
FILES = sorted(CORPUS.rglob("*.py"))
RULES = [
    rule
    for rule in registry.load().for_profile(registry.load().profile("generic"))  # type: ignore[arg-type]
    if issubclass(rule, PythonRule)
]


def test_corpus_is_real_and_relevant() -> None:
    assert len(FILES) > 50
    assert sum("cuda" in file.read_text(encoding="utf-8") for file in FILES) > 10


@pytest.mark.parametrize("file", FILES, ids=[str(f.relative_to(CORPUS)) for f in FILES])
def test_fast_path_equals_full_path(file: Path) -> None:
    text = decode_python(file.read_bytes()).text
    rel = file.relative_to(CORPUS).as_posix()
    try:
        full = migrate_python(text, rel, RULES, NPU, RuleOptions(), full=True)
    except SourceError:
        pytest.skip("not parseable with this Python's grammar")
    fast = migrate_python(text, rel, RULES, NPU, RuleOptions(), full=False)
    assert fast.text == full.text
    assert fast.changes == full.changes
    assert fast.warnings == full.warnings
