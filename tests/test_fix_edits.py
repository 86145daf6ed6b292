"""`fix_edits`: each edit finding's part of a file's change, as ruff's `fix.edits`."""

from __future__ import annotations

from migrator.core.model import FileResult, Finding, Fix, Status, TextEdit
from migrator.output.findings import fix_edits

OLD = "export A=1\nexport CUDA_HOME=/usr/local/cuda\n"


def _result(new: str, *findings: Finding) -> FileResult:
    return FileResult(
        "run.sh", Status.CHANGED, OLD.encode(), new.encode(), findings=tuple(findings)
    )


def test_a_text_rules_own_text_edit_is_the_range() -> None:
    start = OLD.index("CUDA_HOME=/usr/local/cuda")
    end = start + len("CUDA_HOME=/usr/local/cuda")
    new = OLD.replace("CUDA_HOME=/usr/local/cuda", "ASCEND_HOME=/usr/local/Ascend")
    edit = TextEdit(start, end, "ASCEND_HOME=/usr/local/Ascend")
    item = Finding.change("run.sh", 2, 8, "NPU100", "CUDA_HOME", fix=Fix((edit,)))
    assert fix_edits(_result(new, item)) == {
        0: [
            {
                "content": "ASCEND_HOME=/usr/local/Ascend",
                "location": {"line": 2, "column": 8},
                "end_location": {"line": 2, "column": 33},
            }
        ]
    }, "the rule's span as it is, not the words a diff would pick"


def test_without_text_edits_the_changed_words_go_to_the_finding_that_holds_them() -> None:
    new = "export A=1\nexport ASCEND_HOME=/usr/local/Ascend\n"
    first = Finding.change("run.sh", 2, 8, "NPU100", "name")
    second = Finding.change("run.sh", 2, 20, "NPU100", "value")
    found = fix_edits(_result(new, first, second))
    assert [e["content"] for e in found[0]] == ["ASCEND_HOME"]
    assert [e["content"] for e in found[1]] == ["Ascend"]
    assert found[1][0]["location"] == {"line": 2, "column": 29}


def test_a_bom_is_no_column() -> None:
    data = b"\xef\xbb\xbf" + OLD.encode()
    new = b"\xef\xbb\xbf" + OLD.replace("A=1", "B=1").encode()
    item = Finding.change("run.sh", 1, 8, "NPU100", "A")
    result = FileResult("run.sh", Status.CHANGED, data, new, findings=(item,))
    (edit,) = fix_edits(result)[0]
    assert edit["location"] == {"line": 1, "column": 8}
