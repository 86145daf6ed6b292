"""Warnings grouped by what a person must do: every registered code has its action."""

from __future__ import annotations

import json
from pathlib import Path

from migrator.core.model import Action, FileResult, Finding, RunSummary, Status
from migrator.engine import registry
from migrator.output.actions import OTHER, console_lines, declared, groups
from migrator.output.report import RunInfo, action_sections, as_json
from migrator.output.sarif import as_sarif

HOW = (
    'declare `action = "<value>"` in the rule class, beside its `code` (values: '
    + ", ".join(action.value for action in Action)
    + "; see migrator.core.model.Action)"
)


def test_every_rule_declares_a_known_action() -> None:
    missing = []
    for rule in registry.load().rules:
        # Its own declaration: a rule built on another rule must not inherit a wrong group.
        value = rule.__dict__.get("action")
        if value not in {action.value for action in Action}:
            missing.append(f"{rule.code} ({rule.__module__}): {value!r}")
    assert not missing, f"rules without a known action: {missing}; {HOW}"


def test_every_registered_code_maps_to_an_action() -> None:
    loaded = registry.load()
    unmapped = [code for code in loaded.codes if declared(code) is None]
    assert not unmapped, f"codes with no action: {unmapped}; {HOW}"


def test_a_profile_step_defaults_to_generated_file() -> None:
    assert declared("DIT091") is Action.GENERATED_FILE


W_LIB = Finding.warning("b.py", 3, 1, "NPU050", "flash-attn is CUDA-only", "use sdpa")
W_DTYPE = Finding.warning("a.py", 9, 5, "NPU062", "float64 on the device", "use float32")
W_DTYPE_EARLY = Finding.warning("a.py", 2, 1, "NPU062", "float64 again", "use float32")
W_UNKNOWN = Finding.warning("a.py", 4, 1, "XYZ001", "a third-party rule", "")
REVIEW = Finding.change("a.py", 1, 1, "NPU030", "entry set up", True)
PLAIN = Finding.change("a.py", 5, 1, "NPU011", ".cuda() -> .npu()")
SUPPRESSED = Finding.suppression("a.py", 7, "NPU010")
RESULTS = (
    FileResult(
        "a.py", Status.CHANGED,
        findings=(REVIEW, W_DTYPE_EARLY, W_UNKNOWN, PLAIN, SUPPRESSED, W_DTYPE),
    ),
    FileResult("b.py", Status.UNCHANGED, findings=(W_LIB,)),
)  # fmt: skip


def test_groups_follow_the_action_order_and_sort_their_sites() -> None:
    found = groups(RESULTS)
    assert [group.key for group in found] == [
        "replace-library", "change-dtype", "review", OTHER,
    ]  # fmt: skip
    assert found[1].sites == (W_DTYPE_EARLY, W_DTYPE)
    assert found[2].sites == (REVIEW,), "only edits that need review; plain edits are no work"
    assert all(SUPPRESSED not in group.sites for group in found)


def test_markdown_lists_the_plan_then_each_actions_sites() -> None:
    text = "\n".join(action_sections(RESULTS))
    plan, _, body = text.partition("### ")
    assert "| Change a dtype the NPU lacks | 2 | NPU062 |" in plan
    assert "| Other (the rule declares no action) | 1 | XYZ001 |" in plan
    dtype = body.split("### Change a dtype the NPU lacks")[1].split("###")[0]
    assert dtype.index("| `a.py` | 2 | NPU062 |") < dtype.index("| `a.py` | 9 | NPU062 |")
    review = body.split("### Review a rewrite")[1].split("###")[0]
    assert "| `a.py` | 1 | NPU030 | edited: entry set up | check the edit" in review


def test_console_block_names_each_action_with_its_first_sites() -> None:
    lines = console_lines(groups(RESULTS), limit=1)
    assert lines[0] == "what needs a person, by action (5 sites):"
    assert lines[2] == (
        "  Change a dtype the NPU lacks (NPU062 x2): a.py:2, and 1 more (--report FILE.md "
        "lists them)"
    )
    assert lines[1] == "  Replace a CUDA-only library or kernel (NPU050): b.py:3"
    assert console_lines([]) == []


def _summary() -> RunSummary:
    summary = RunSummary()
    for result in RESULTS:
        summary.add(result)
        summary.results.append(result)
    return summary


def test_json_and_sarif_carry_the_action_of_each_site(tmp_path: Path) -> None:
    info = RunInfo(str(tmp_path), "npu", "generic", "dry-run", ())
    document = json.loads(as_json(info, _summary(), ()))
    by_path = {item["path"]: item for item in document["files"]}
    assert [w["action"] for w in by_path["a.py"]["warnings"]] == [
        "change-dtype", OTHER, "change-dtype",
    ]  # fmt: skip
    changes = by_path["a.py"]["changes"]
    assert changes[0]["action"] == "review" and "action" not in changes[1]
    assert {"action": "replace-library", "title": Action.REPLACE_LIBRARY.title, "sites": 1,
            "codes": ["NPU050"]} in document["actions"]  # fmt: skip
    sarif = json.loads(as_sarif(info, _summary()))
    run = sarif["runs"][0]
    actions = {(r["ruleId"], r.get("properties", {}).get("action")) for r in run["results"]}
    assert ("NPU050", "replace-library") in actions and ("NPU030", "review") in actions
    rules = {rule["id"]: rule["properties"]["action"] for rule in run["tool"]["driver"]["rules"]}
    assert rules["NPU062"] == "change-dtype"
