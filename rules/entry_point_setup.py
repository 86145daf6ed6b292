"""Entry scripts: load the device runtime, its safety net and the patcher first."""

from __future__ import annotations

import ast
import bisect
import itertools
import re
import textwrap
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import ClassVar

import libcst as cst

from migrator import data
from migrator.analysis.ast_lines import (
    first_line,
    identifiers,
    is_word,
    last_line,
    logical_groups,
    walk,
    walk_outside_bodies,
)
from migrator.analysis.cst_helpers import dotted_name, retarget_device, string_value
from migrator.analysis.statement_spans import data_statements
from migrator.contract.entries import entry_paths as _paths
from migrator.contract.entries import is_named_or_launched
from migrator.contract.entries import named as _named
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import FileView, Trigger, Unit
from migrator.core.model import ActionName, Safety
from migrator.core.target import Target
from migrator.formats.sources import split_lines

# Calls that do the training's work (not just build its parts): at module level, outside a
# main block, they make a file a script that trains when it runs.
_WORKING_CALLS = frozenset(
    {"deepspeed.initialize", "torch.distributed.init_process_group", "torch.autograd.backward"}
)
_TRAINING_CALLS = frozenset(
    {
        "accelerate.Accelerator",
        "accelerate.accelerator.Accelerator",
        "accelerate.DeepSpeedPlugin",
        "accelerate.utils.DeepSpeedPlugin",
        "deepspeed.initialize",
        "torch.distributed.init_process_group",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.distributed.fsdp.fully_shard",
        "torch.autograd.backward",
    }
)
# The last names of the working calls and methods: code that calls one spells it, as its
# attribute or in the import that binds it (`from torch.autograd import backward as bw`).
_WORK = ("backward", "step", "initialize", "init_process_group", "cuda", "fit", "train",
         "run_training")  # fmt: skip
_WORK_WORDS = re.compile(rf"\b(?:{'|'.join(_WORK)})\b")
# Methods that run training on an object built elsewhere (`trainer.fit(model)`,
# `runner.train()`, `strategy.run_training(...)`), when the receiver's name says what it is:
# `model.train()` only switches a module to training mode.
_TRAINING_METHODS = frozenset({"fit", "train", "run_training"})
_TRAINER_RECEIVER = re.compile(r"trainer|runner|strategy")
_MM_PACKAGES = ("mmcv", "mmdet", "mmdet3d")
_BUILD_MODULES = ("torch.utils.cpp_extension", "torch.utils.ffi")
_CAUGHT = "(ImportError, RuntimeError, OSError)"
_END = "End of the migration's set-up."
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement
_MARK = "Added by the migration (entry-point-setup)"
_NO_BREAK = "\u00a0"
# A module this long is read for its plain-data statements, which the pass skips.
_LARGE = 32_768


def _is_main_guard(node: cst.CSTNode) -> bool:
    """`if __name__ == "__main__":` (either way round)."""
    if not isinstance(node, cst.If) or not isinstance(node.test, cst.Comparison):
        return False
    test = node.test
    if len(test.comparisons) != 1 or not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    names = [side for side in sides if isinstance(side, cst.Name) and side.value == "__name__"]
    return len(names) == 1 and any(string_value(side) == "__main__" for side in sides)


def _may_be_main_guard(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.If) and any(
        isinstance(node, ast.Name) and node.id == "__name__" for node in ast.walk(statement.test)
    )


def _may_work_at_top_level(tree: ast.Module, text: str) -> bool:
    """Whether module-level code (outside function and class bodies, where the rule
    counts working calls) may call `.backward()`, `.step()`, `init_process_group` or
    `deepspeed.initialize`. Only top-level statements whose module-level lines (a
    function's or class's up to its body) spell one of those names, or a name imported as
    one of them, are walked, and not into function or class bodies."""
    imported: set[str] = set()
    called: set[str] = set()
    spans = _module_level_spans(tree, split_lines(text))
    for statement in _spelling(text, spans, _WORK):
        for node in walk_outside_bodies(statement):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imported.update(
                    alias.asname or alias.name.split(".", 1)[0]
                    for alias in node.names
                    if _WORK_WORDS.fullmatch(alias.name.rsplit(".", 1)[-1])
                )
            elif isinstance(node, ast.Call):
                func = node.func
                if (
                    isinstance(func, ast.Attribute)
                    and _WORK_WORDS.fullmatch(func.attr)
                    and _may_work(func, text)
                ):
                    return True
                if isinstance(func, ast.Name):
                    called.add(func.id)
    if not imported or imported & called:
        return bool(imported)
    # `bw(loss)` after `from torch.autograd import backward as bw`: the call's own line
    # spells only the alias.
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported
        for statement in _spelling(text, spans, sorted(imported))
        for node in walk_outside_bodies(statement)
    )


def _module_level_spans(
    tree: ast.Module, lines: Sequence[str]
) -> list[tuple[int, int, list[ast.stmt]]]:
    """(start, end) in the text of the part of each top-level statement that runs at
    module level, with the statements on those lines (`logical_groups`: `a = 1; b = 2`
    share theirs): a function's or class's lines up to its body's first line (its
    decorators, defaults, annotations and bases), any other statement's whole lines."""
    starts = list(itertools.accumulate(map(len, lines), initial=0))
    spans = []
    for first, last, members in logical_groups(tree.body, lines):
        only = members[0]
        if len(members) == 1 and isinstance(
            only, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        ):
            last = first_line(only.body[0])
        spans.append((starts[first - 1], starts[min(last, len(lines))], members))
    return spans


def _spelling(
    text: str, spans: Sequence[tuple[int, int, list[ast.stmt]]], words: Sequence[str]
) -> list[ast.stmt]:
    """The statements of `spans` (`_module_level_spans`) whose module-level part spells
    one of `words` as a whole word (in code, a string or a comment). Each word is found
    from where the last search left off, and a statement that holds it is passed over:
    a function body that spells "cuda" hundreds of times costs a search or two, where
    finding every line that spells it cost 0.35 s of a run over torch's source."""
    begins = [start for start, _, _ in spans]
    found: set[int] = set()
    for word in words:
        position = 0
        while (at := text.find(word, position)) >= 0:
            index = bisect.bisect_right(begins, at) - 1
            if index < 0 or at >= spans[index][1]:
                # Before the first statement, in a body or between statements.
                position = begins[index + 1] if index + 1 < len(spans) else len(text)
                continue
            before = text[at - 1 : at]
            after = text[at + len(word) : at + len(word) + 1]
            if (before and is_word(before)) or (after and is_word(after)):
                position = at + 1
                continue
            found.add(index)
            position = spans[index][1]
    return [statement for index in sorted(found) for statement in spans[index][2]]


# What a working method call needs besides its name for `visit_Call` to count it: the
# module whose function it must resolve to (spelt in the import that binds it), or what
# its receiver's last name must hold (`_TRAINER_RECEIVER`; "optim" for `.step()`).
_WORK_MODULES = {"initialize": "deepspeed", "init_process_group": "distributed"}
_WORK_RECEIVERS = {
    "step": re.compile("optim"),
    **{method: _TRAINER_RECEIVER for method in _TRAINING_METHODS},
}


def _may_work(func: ast.Attribute, text: str) -> bool:
    """Whether `visit_Call` may count a call of this method as the training's work:
    `_rocm_init.initialize()` in torch's `__init__` is no `deepspeed.initialize`, and
    `model.train()` no trainer's."""
    module = _WORK_MODULES.get(func.attr)
    if module is not None:
        return module in text
    if func.attr not in _WORK_RECEIVERS:
        return True
    value = func.value
    last = value.id if isinstance(value, ast.Name) else getattr(value, "attr", None)
    return isinstance(last, str) and _receives_work(func.attr, last)


def _receives_work(method: str, receiver: str) -> bool:
    """Whether a call of `method` (one of `_WORK_RECEIVERS`) on a receiver whose last name
    is `receiver` does the training's work: `optimizer.step()`, `trainer.fit(model)`, not
    `scheduler.step()` or `model.train()`. `visit_Call` and its gate read the same table."""
    return _WORK_RECEIVERS[method].search(receiver.lower()) is not None


def _is_docstring(node: cst.BaseStatement) -> bool:
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Expr)
        and isinstance(node.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_future_import(node: cst.BaseStatement) -> bool:
    return (
        isinstance(node, cst.SimpleStatementLine)
        and all(
            isinstance(small, cst.ImportFrom)
            and isinstance(small.module, cst.Name)
            and small.module.value == "__future__"
            for small in node.body
        )
        and bool(node.body)
    )


def _insertion_index(body: Sequence[cst.BaseStatement]) -> int:
    """After the module docstring and the `from __future__` imports."""
    index = 1 if body and _is_docstring(body[0]) else 0
    while index < len(body) and _is_future_import(body[index]):
        index += 1
    return index


def _wrap(text: str) -> list[str]:
    """Comment lines of at most 84 characters; code in backticks is never split."""
    spans = text.split("`")
    glued = "`".join(
        span.replace(" ", _NO_BREAK) if index % 2 else span for index, span in enumerate(spans)
    )
    return [line.replace(_NO_BREAK, " ") for line in textwrap.wrap(glued, width=84)]


def _comment_lines(lines: Sequence[str]) -> list[cst.EmptyLine]:
    return [cst.EmptyLine(comment=cst.Comment(f"# {line}")) for line in lines]


def _may_be_entry(view: FileView) -> bool:
    # It acts (or reports) only on a named entry, a file with a main block, or one whose
    # top-level code does the training's work; library modules (most files that merely
    # mention ".backward(") have none, and are then spared a whole-module pass. A block
    # an earlier version wrote is always looked at: it is rewritten to the current form.
    if _MARK in view.text:
        return True
    if view.options.entry_points:
        return view.path in _named(view.options)
    if view.tree is None:
        return True
    if any(_may_be_main_guard(statement) for statement in view.tree.body):
        return _may_have_a_reason(view.tree, view)
    return _may_work_at_top_level(view.tree, view.text)


# The names a call `visit_Call` counts as a training signal or device use ends in (the
# last part of what it resolves to), or the method it calls: code that makes one spells
# it, at the call or in the import that binds it (`from accelerate import Accelerator as
# A`), as `optim` for `torch.optim.<Optimizer>`.
_SIGNAL_NAMES = frozenset(
    {
        *(name.rsplit(".", 1)[-1] for name in (*_TRAINING_CALLS, *_WORKING_CALLS)),
        *_TRAINING_METHODS,
        *_WORK_RECEIVERS,
        "backward",
        "optim",
    }
)


def _may_have_a_reason(tree: ast.Module, view: FileView) -> bool:
    """Whether a file with a main block may be an entry (`_entry_reason`), or a device
    script it reports: a launch command of the project runs it, or its tree holds an
    identifier (`ast_lines.identifiers`) a training signal or device use needs
    (`_SIGNAL_NAMES`, a `*Trainer`, a name or module path with "train" in it, the devices'
    names) or a string naming a device. A superset of what `visit_Call` and
    `visit_SimpleString` collect: on torch's source it spares a LibCST parse and two
    whole-module passes to 24 of the 25 files with a main block that are neither."""
    if view.project.entry(view.path) is not None:
        return True
    devices = (view.target.source_device_type, view.target.device_type)
    for node in walk(tree):
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            if isinstance(value, str) and any(retarget_device(value, d, d) for d in devices):
                return True
            continue
        for name in identifiers(node):
            if (
                name in _SIGNAL_NAMES
                or name in devices
                or name.endswith("Trainer")
                or "train" in name.lower()
            ):
                return True
    return False


# What NPU090 (npu-runtime-settings, built on this rule) looks for in a module's code: a
# module that already sets one of these gets no suggestion.
RUNTIME_SETTINGS = ("allow_internal_format", "set_compile_mode")
# A top-level definition shorter than this is parsed as it is (`_quiet_definitions`).
_QUIET_LEAST = 256
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Escapes that may spell a letter in a string's value (`"\x63uda"` is "cuda", as
# `visit_SimpleString` reads it), and a backslash that joins a string's lines.
_ESCAPE = re.compile(r"\\(?:[xuUN0-7]|\r|\n)")


def _quiet_definitions(
    body: Sequence[ast.stmt], lines: Sequence[str], target: Target
) -> frozenset[int]:
    """The indices of the top-level functions and classes in `body` (a module's
    statements; `lines`: its lines) in which this rule's pass, and NPU090's, collect and
    read nothing: their text spells no name `visit_Call` counts as a training signal or
    device use (`_SIGNAL_NAMES`, the devices' names, "train" in any case, which also
    covers `*Trainer` and the main block's own `train*()`), no name a top-level
    import binds to one that spells one (`from torch.optim import AdamW`, then `AdamW()`),
    no `import` (`visit_Import` looks for an earlier set-up) and none of
    `RUNTIME_SETTINGS`; a device string spells a device's name, where no escape in the
    text may spell a letter or join a string's lines (`_ESCAPE`), and a name is read as
    the parser reads it (NFKC-normalized). A definition's own name is all the rule
    reads of it (`_local_functions`), and its stand-in keeps that.

    None where a top-level star import's module spells such a name (what it binds is
    not spelled), nor the statement the set-up block goes before (the anchor of its report
    and suppression), nor one shorter than `_QUIET_LEAST` characters."""
    devices = (target.source_device_type, target.device_type)
    spans = [(first_line(statement), last_line(statement)) for statement in body]

    def text(index: int) -> str:
        first, last = spans[index]
        return "".join(lines[first - 1 : last])

    words = {*_SIGNAL_NAMES, *devices}
    signal = re.compile(
        rf"\b(?:{'|'.join(map(re.escape, sorted(words)))})\b|(?i:train)|"
        + "|".join(RUNTIME_SETTINGS)
    )
    # A name resolves to a dotted one only through an import (`ModuleBindings.resolve`,
    # read off the whole file): the names imports at top level bind to one that spells
    # a signal count as spelling one.
    for statement in body:
        # A simple statement other than an import holds none (a table may be huge).
        if isinstance(statement, _DEFINITIONS) or not (
            isinstance(statement, (ast.Import, ast.ImportFrom)) or hasattr(statement, "body")
        ):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                for alias in node.names:
                    if signal.search(f"{module}.{alias.name}") is None:
                        continue
                    if alias.name == "*":
                        return frozenset()
                    words.add(alias.asname or alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if signal.search(alias.name) is not None:
                        words.add(alias.asname or alias.name.split(".", 1)[0])
    spelled = re.compile(
        rf"\b(?:{'|'.join(map(re.escape, sorted(words)))})\b|(?i:train)|"
        + "|".join(RUNTIME_SETTINGS)
    )
    # The statement the set-up block goes before (after the docstring and the
    # `from __future__` imports, `_insertion_index`), and every one above it.
    # LibCST takes a concatenation for a docstring too, which the stdlib parses as a
    # JoinedStr where one part is an f-string: any leading expression may be one.
    anchor = 1 if body and isinstance(body[0], ast.Expr) else 0
    while (
        anchor < len(body)
        and isinstance(body[anchor], ast.ImportFrom)
        and body[anchor].module == "__future__"  # type: ignore[attr-defined]
    ):
        anchor += 1
    imports = re.compile(r"\bimport\b")
    quiet = set()
    for index in range(anchor + 1, len(body)):
        if not isinstance(body[index], _DEFINITIONS):
            continue
        code = text(index)
        # Names as the parser reads them (NFKC: fullwidth letters are ASCII ones).
        read = code if code.isascii() else unicodedata.normalize("NFKC", code)
        if (
            len(code) >= _QUIET_LEAST
            and _ESCAPE.search(code) is None
            and spelled.search(read) is None
            and imports.search(code) is None
            and _MARK not in code
        ):
            quiet.add(index)
    return frozenset(quiet)


def _is_not_none_test(test: cst.BaseExpression, name: str) -> bool:
    """`<name> is not None` (a plain check: libcst.matchers costs start-up time)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    (comparison,) = test.comparisons
    return (
        isinstance(test.left, cst.Name)
        and test.left.value == name
        and isinstance(comparison.operator, cst.IsNot)
        and isinstance(comparison.comparator, cst.Name)
        and comparison.comparator.value == "None"
    )


class EntryPointSetup(PythonRule):
    """Set up entry scripts: import the device runtime, its safety net and the patcher.

    What it does: at the top of each entry script (after the module docstring and any
    `from __future__` imports, so before module-level code that builds an accelerator or a
    process group, as DiT4DiT's train.py does right after its imports) it adds one marked
    block. Its `try` statement imports `torch_npu` and `torch_npu.contrib.transfer_to_npu`
    (the run-time safety net for CUDA calls the static rules did not rewrite); where they
    cannot load (`ImportError`, and the `RuntimeError` / `OSError` of a torch_npu without
    CANN, which fails on `libhccl.so` or in its backend loader) it raises one `ImportError`,
    chained to the cause, that says what to do: source CANN's `set_env.sh` (the root and
    per-user default paths) and install the torch-npu release matching the installed torch
    (the release the run targeted is named). The script stops there, before it builds
    anything on a device it does not have, instead of failing later far from the cause.
    Where the patcher is wanted, a second `try` imports
    `from mx_driving.patcher import default_patcher_builder` and sets it to None, silently,
    only when mx_driving itself is not installed (a broken mx_driving still fails); the
    first statement of the `if __name__ == "__main__":` block then applies it when present:
    `default_patcher_builder.build().__enter__()`, which is what the documented
    `with default_patcher_builder.build() as patcher: main()` does on entry (its exit undoes
    nothing), without re-indenting the user's main block (a one-line main block becomes an
    indented one). No import statement sits at the block's top level, so imports other
    rules request land above it, never inside it. Every name comes from the target.

    Entries: with `--entry FILE` (`RuleOptions.entry_points`, paths relative to the
    project root) exactly the named files are entries; `--no-entry FILE` is never one.
    Otherwise a file is an entry, and the report says why, when:
    - it has an `if __name__ == "__main__":` block and it trains: the module calls
      `.backward(...)` or `<optimizer>.step()`, builds `torch.optim.<Optimizer>`, an
      `accelerate.Accelerator` or `DeepSpeedPlugin`, a `*Trainer`, calls
      `deepspeed.initialize`, `torch.distributed.init_process_group`, wraps a model in
      DDP/FSDP, calls `.fit(`/`.train(`/`.run_training(` on an object whose name says
      trainer, runner or strategy (`trainer = hydra.utils.instantiate(cfg.trainer)` then
      `trainer.fit(model)`; `runner.train()`; not `model.train()`); or its main block calls
      a function imported from a training module (`from pkg.train import main`) or its own
      `train*()` function;
    - a launch command of the project runs it (the project view: shell scripts, README
      shell blocks, Makefiles, `[project.scripts]`, `console_scripts`; `python -m pkg.train`
      counts though other modules import it too; `$(dirname "$0")/train.py`,
      `${BASH_SOURCE%/*}/x.py` and `$SCRIPT_DIR/x.py` are read beside the script; `-m
      "$MODULE"` names each project module the script assigns to MODULE), it uses torch or
      imports its own package (`from pkg.worker import run`: the work is there) and it runs
      something (a main block or a top-level call); a package's `__init__.py` never;
    - its main block puts something on the device (`.cuda()`, a "cuda" device string as
      in `pipe.to("cuda")` or a `device="cuda"` default, `torch.cuda.*`): an evaluation,
      inference or data-preparation script needs the runtime imported too. A profile
      whose hand port sets up only training (dit4dit) reports these instead;
    - it has no main block and its module-level code (outside any function or class) does
      the training's work or reaches the device: `.backward()`, `<optimizer>.step()`,
      `init_process_group`, `deepspeed.initialize`, `trainer.fit(...)`, `.cuda()`, as
      nanoGPT's `train.py`. Such a script, like a named entry without a main block, gets the
      patcher applied at the top, right after the imports (its top-level code is the work).
    A module that is only imported never gets set-up code, nor does a build script
    (`setup.py`, a module importing setuptools, distutils or `torch.utils.cpp_extension`):
    it compiles on the host and must not load the device runtime.

    The patcher (`--patcher`, `RuleOptions.patcher`): mx_driving's default patcher patches
    mmcv / mmdet / mmdet3d ops and wraps `torch.Tensor.__getitem__` and `torch.matmul`
    globally, so with `auto` (the default) it is added only where the project imports
    mmcv, mmdet or mmdet3d (the project view), or where the profile asks (dit4dit);
    `mx-driving` adds it to every entry, `none` to none.

    Already migrated: a file that imports the runtime, the safety net or the patcher's
    package anywhere (by hand or from an earlier run) gets no second block. A block this
    rule wrote, recognised by its marker comment on a `try` that imports only these modules
    (every earlier version's form: the runtime alone, the guarded imports that warned and
    ran on, with or without the patcher), is rewritten to the current form, with the
    patcher added or dropped (its line in the main block too) as the options and the
    project now ask; a block edited by hand (another import inside it) is the user's and
    left alone, and so is a file named with `--no-entry`. `--no-transfer-to-npu`
    (`RuleOptions.transfer_to_npu=False`) leaves out the safety net and also the patcher,
    because importing mx_driving imports transfer_to_npu itself; where the patcher was
    wanted that omission is reported (asking for both on the command line is a usage
    error).

    Why: transfer_to_npu is the safety net behind the static migration: it maps the
    remaining `torch.cuda.*` calls, "cuda" device arguments and `init_process_group("nccl")`
    to the NPU at run time, but only for code that runs after it is imported, so it must
    come before module-level code such as DiT4DiT's `DeepSpeedPlugin(...)` /
    `Accelerator(...)`. The mx_driving patcher (mmcv/mmdet ops, numpy's deprecated aliases,
    wrappers of `torch.Tensor.__getitem__` and `torch.matmul`) asks to be applied as early
    as possible in the entry script. The explicit `import torch_npu` is the documented
    norm; with torch-npu >= 2.5.1 `import torch` also loads it, and accelerate and
    DeepSpeed import it themselves, so that line mostly makes the dependency visible.

    Example: see the examples below: a training script gains the block under its
    docstring (and, with the patcher, one patcher line at the top of its main block).

    Safety: needs review: the migrated entry no longer starts without a working torch_npu
    (by design: on a CPU-only machine, run the unmigrated code); transfer_to_npu disables
    `torch.jit.script` and reports Triton as absent, and the patcher wraps
    `torch.Tensor.__getitem__` and `torch.matmul` globally. The block is short and marked;
    delete it to undo.
    """

    code = "NPU030"
    # Annotated: NPU090 (npu-runtime-settings) subclasses this rule with its own action.
    action: ClassVar[ActionName] = "host-setup"
    name = "entry-point-setup"
    summary = "Entry scripts load torch_npu and transfer_to_npu first, or stop saying what to do."
    safety = Safety.REVIEW
    # A notebook is not launched as a script; its kernel imports what its cells import.
    trigger = Trigger(
        tokens=(
            "__main__",
            "def main(",
            ".backward(",
            "Accelerator(",
            "Trainer(",
            "init_process_group",
            "deepspeed.initialize",
            ".cuda(",
            ".fit(",
            ".train(",
            "run_training",
            # The block an earlier version wrote, which is rewritten to the current form.
            _MARK,
        ),
        unit=Unit.MODULE,
        notebooks=False,
        # A file named with --entry, or one a launch command of the project runs, is set
        # up even when it has none of the tokens (a LibCST-free check: see the index).
        always=is_named_or_launched,
        gate=_may_be_entry,
        # Its pass skips the statements of plain data too (`visit_Module`).
        skips_data=True,
        quiet_definitions=_quiet_definitions,
    )
    priority = 900
    # Not a device edit: it applies inside code that already handles the NPU too.
    leaves_device_regions = False

    examples = (
        Example(
            '"""Train."""\nimport torch\n\n\ndef main():\n    loss = torch.ones(1)\n'
            '    loss.backward()\n\n\nif __name__ == "__main__":\n    main()\n',
            '"""Train."""\n\n'
            "# Added by the migration (entry-point-setup): the npu runtime and its safety "
            "net load\n"
            "# before anything builds a device, an accelerator or a process group; where "
            "they\n"
            "# cannot, the script stops here and says what to do.\n"
            "try:\n"
            "    import torch_npu  # noqa: F401\n"
            "    import torch_npu.contrib.transfer_to_npu  # noqa: F401\n"
            "except (ImportError, RuntimeError, OSError) as error:\n"
            "    raise ImportError(\n"
            '        "torch_npu did not load: source CANN\'s set_env.sh first "\n'
            '        "(/usr/local/Ascend/ascend-toolkit/set_env.sh, or "\n'
            '        "~/Ascend/ascend-toolkit/set_env.sh for a per-user install), and '
            'install "\n'
            '        "the torch-npu release that matches the installed torch (this '
            'migration "\n'
            '        "targeted torch-npu 2.7.1.post11, for torch 2.7.1)"\n'
            "    ) from error\n"
            "# End of the migration's set-up.\n\n"
            "import torch\n\n\ndef main():\n    loss = torch.ones(1)\n"
            '    loss.backward()\n\n\nif __name__ == "__main__":\n'
            "    main()\n",
        ),
        Example(
            'import argparse\n\nif __name__ == "__main__":\n'
            "    print(argparse.ArgumentParser().parse_args())\n",
            None,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._top_level: set[int] = set()
        self._main: cst.If | None = None
        self._in_main = False
        self._trains: list[str] = []
        # Training signals in module-level code (outside any def/class): a script.
        self._top_level_trains: list[str] = []
        # How the module reaches the device (`calls .cuda()`), for a main block's reason.
        self._device_use: str | None = None
        self._local_functions: set[str] = set()
        self._runs = False
        self._set_up = False

    # Collecting: main block, training signals, device use, earlier set-up -------------
    def visit_Module(self, node: cst.Module) -> None:
        self._top_level = {id(statement) for statement in node.body}
        code = self.ctx.shared.code(node)
        if len(code) >= _LARGE:
            # A table of numbers and names has no call, import, `if` or device string:
            # nothing this rule collects (torch's sparse/_triton_ops_meta.py is one
            # statement of 7,000 lines, which took 3 s of a pass to walk).
            tables = data_statements(node, code, split_lines(code), self._devices())
            self._cold = {*self._cold, *tables}
        # A main block or a top-level call (`main()`, `fire.Fire(main)`): it runs.
        self._runs = any(
            (
                isinstance(statement, cst.SimpleStatementLine)
                and any(
                    isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                    for small in statement.body
                )
            )
            or (isinstance(statement, cst.If) and _is_main_guard(statement))
            for statement in node.body
        )
        self._local_functions = {
            statement.name.value
            for statement in node.body
            if isinstance(statement, cst.FunctionDef)
        }

    def visit_If(self, node: cst.If) -> None:
        if self._main is None and id(node) in self._top_level and _is_main_guard(node):
            self._main = node
            self._in_main = True

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.BaseStatement:
        if original_node is self._main:
            self._in_main = False
        return updated_node

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._note_import(dotted_name(alias.name) or "")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and not node.relative:
            self._note_import(dotted_name(node.module) or "")

    def _note_import(self, module: str) -> None:
        setup = (
            self.target.runtime_module,
            self.target.safety_net_module,
            self.target.patcher_module.split(".", 1)[0],
        )
        if any(module == name or module.startswith(name + ".") for name in setup):
            self._set_up = True

    def visit_Call(self, node: cst.Call) -> None:
        name = self.qualname(node.func)
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        receiver = dotted_name(node.func.value) if isinstance(node.func, cst.Attribute) else None
        signal: str | None = None
        if name is not None and (
            name in _TRAINING_CALLS
            or name.rsplit(".", 1)[-1].endswith("Trainer")
            or _is_optimizer(name)
        ):
            last = name.rsplit(".", 1)[-1]
            verb = "builds" if last[:1].isupper() else "calls"
            signal = f"the module {verb} {name}"
        elif method == "backward":
            signal = "the module calls .backward()"
        elif (
            method in _WORK_RECEIVERS
            and receiver
            and _receives_work(method, receiver.rsplit(".", 1)[-1])
        ):
            signal = f"the module calls {receiver}.{method}()"
        elif self._in_main and name is not None and _from_training_module(name):
            signal = f"the main block calls {name}"
        elif (
            self._in_main
            and isinstance(node.func, cst.Name)
            and node.func.value in self._local_functions
            and "train" in node.func.value.lower()
        ):
            signal = f"the main block calls its own {node.func.value}()"
        if signal is not None:
            self._trains.append(signal)
            working = (
                method == "backward"
                or name in _WORKING_CALLS
                or (method == "step" and signal.endswith(".step()"))
                or method in _TRAINING_METHODS
            )
            if working and not self.names.depth and not self._in_main:
                self._top_level_trains.append(signal.replace("the module", "its top-level code"))
        devices = self._devices()
        use: str | None = None
        if method in devices:
            use = f"calls .{method}()"
            if not self.names.depth and not self._in_main and method == devices[0]:
                self._top_level_trains.append("its top-level code calls .cuda()")
        elif name is not None and any(name.startswith(f"torch.{d}.") for d in devices):
            use = f"calls {name}"
        if use is not None and self._device_use is None:
            self._device_use = use

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = string_value(node)
        if value is None or self._device_use is not None:
            return
        if any(retarget_device(value, d, d) for d in self._devices()):
            self._device_use = f"names the device {value!r}"

    def _devices(self) -> tuple[str, str]:
        return (self.target.source_device_type, self.target.device_type)

    # Deciding and editing --------------------------------------------------------
    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        earlier = self._earlier_block(original_node.body)
        if earlier is not None and self.ctx.path not in _paths(self.ctx.options.no_entry_points):
            return self._refresh(original_node, updated_node, *earlier)
        if self._set_up:
            return updated_node
        reason = self._entry_reason()
        if reason is None:
            return updated_node
        return self._set_up_entry(original_node, updated_node, reason)

    def _entry_reason(self) -> str | None:
        """Why the file is an entry (a launch line or a construct), or None."""
        options, path = self.ctx.options, self.ctx.path
        if path in _paths(options.no_entry_points):
            return None
        if options.entry_points:
            return "named with --entry" if path in _named(options) else None
        if self._builds():
            # setup.py / build.py compile extensions on the host: never an entry.
            return None
        if self._main is None and self._top_level_trains:
            # A script that trains or reaches the device at import (no main block), as
            # nanoGPT's train.py does.
            return f"a script: {self._top_level_trains[0]}"
        if self._main is not None and self._trains:
            return f"a main block, and {self._trains[0]}"
        device_script = self._device_use is not None and self._uses_torch()
        launched = self.ctx.project.entry(path)
        # A package's __init__ runs on every import of the package: never set up.
        # A launched file that only defines things does nothing when run.
        if (
            launched is not None
            and not path.endswith("__init__.py")
            and self._runs
            and (self._trains or device_script or self._uses_torch() or self._calls_package())
        ):
            return f"launched by {launched.reason}"
        if self._main is None or not device_script:
            return None
        if options.device_entries:
            # An evaluation, inference or data-preparation script: the device needs the
            # runtime imported there too.
            return f"a main block, and the module {self._device_use}"
        self._report_device_script()
        return None

    def _report_device_script(self) -> None:
        """A main block that uses the device but is not set up (rules built on this one,
        such as NPU090, report other things and override it)."""
        assert self._main is not None
        self.warn(
            self._main.test,
            "a main block that runs torch on a device but shows no training: "
            "not set up as an entry",
            f"if it runs on the {self.target.name}, name it with --entry to set it up",
            within=(self._main,),
        )

    def _builds(self) -> bool:
        """A build script: setup.py, or a module importing setuptools / distutils /
        torch.utils.cpp_extension / torch.utils.ffi."""
        if PurePosixPath(self.ctx.path).name == "setup.py":
            return True
        return any(
            (value or "").split(".", 1)[0] in ("setuptools", "distutils")
            or (value or "").startswith(_BUILD_MODULES)
            for values in self.ctx.bindings.names.values()
            for value in values
        )

    def _calls_package(self) -> bool:
        """Whether the module imports its own project's package (`from .worker import run`,
        `cosmos_rl/rollout/entrance.py` importing `cosmos_rl.utils`): a launched module that
        hands its work, and the device, to the package."""
        folders = set(PurePosixPath(self.ctx.path).parts[:-1])
        return any(
            value is not None and (value.startswith(".") or value.split(".", 1)[0] in folders)
            for values in self.ctx.bindings.names.values()
            for value in values
        )

    def _uses_torch(self) -> bool:
        return any(
            value == "torch" or (value or "").startswith("torch.")
            for values in self.ctx.bindings.names.values()
            for value in values
        )

    def _patcher_reason(self) -> str | None:
        """Why entries get mx_driving's default patcher, or None for no patcher."""
        choice = self.ctx.options.patcher
        if choice == "none":
            return None
        if choice != "auto":
            return "asked for"
        found = next((i for i in self.ctx.project.imports if i.package in _MM_PACKAGES), None)
        return None if found is None else f"the project imports {found.package}"

    def _set_up_entry(self, original: cst.Module, updated: cst.Module, reason: str) -> cst.Module:
        target = self.target
        index = _insertion_index(original.body)
        anchor: cst.CSTNode = original.body[index] if index < len(original.body) else original
        safety_net, with_patcher = self._wants()
        if with_patcher and target.patcher_name in self.ctx.bindings.names:
            self.warn(
                anchor,
                f"{target.patcher_name} is already a name in this entry script: not set up",
                f"import {target.runtime_module} and apply {target.patcher_module} by hand",
            )
            return updated
        if self._suppressed(anchor):
            return updated
        main_index = self._main_index(original)
        new_module, block = self._install(updated, index, main_index, safety_net, with_patcher)
        pieces = [target.runtime_module]
        if safety_net:
            pieces.append(target.safety_net_module)
        if with_patcher:
            pieces.append(f"{target.patcher_module}.{target.patcher_name} (optional)")
        self.edit(
            anchor,
            anchor,
            anchor,
            f"entry script ({reason}): imports of {', '.join(pieces)} added here, before "
            "anything builds a device, accelerator or process group; where "
            f"{target.runtime_module} cannot load, the script stops with what to do"
            + ("; the patcher is applied right after them" if block.at_top else ""),
        )
        self._warn_patcher_left_out(anchor)
        if self._main is not None and with_patcher:
            self.edit(
                self._main.test,
                self._main.test,
                self._main.test,
                f"the {_package(target.patcher_module)} patcher is applied first in the main block",
                within=(self._main,),
            )
        return new_module

    def _wants(self) -> tuple[bool, bool]:
        """(the safety net, the patcher) for this entry, from the options and the project."""
        safety_net = self.ctx.options.transfer_to_npu
        return safety_net, safety_net and self._patcher_reason() is not None

    def _warn_patcher_left_out(self, anchor: cst.CSTNode) -> None:
        target = self.target
        if self._patcher_reason() is not None and not self.ctx.options.transfer_to_npu:
            self.warn(
                anchor,
                f"{target.patcher_module} left out: importing it loads "
                f"{target.safety_net_module}, which the options turn off",
                f"add `from {target.patcher_module} import {target.patcher_name}` by hand if "
                "its patches are needed",
            )

    def _suppressed(self, anchor: cst.CSTNode) -> bool:
        spans = [self.ctx.span(anchor)]
        if self._main is not None:
            spans.append(self.ctx.span(self._main.test, (self._main,)))
        return any(self.ctx.is_suppressed(self.code, first, last) for first, _, last in spans)

    def _main_index(self, module: cst.Module) -> int | None:
        main = self._main
        return next((i for i, s in enumerate(module.body) if s is main), None)

    def _install(
        self,
        module: cst.Module,
        index: int,
        main_index: int | None,
        safety_net: bool,
        with_patcher: bool,
    ) -> tuple[cst.Module, _Block]:
        """`module` with the set-up block inserted before statement `index` and, where the
        patcher is wanted, applied first in the main block (statement `main_index`)."""
        at_top = with_patcher and main_index is None
        block = self._top_block(safety_net, with_patcher, at_top)
        new_module = _splice(module, index, block)
        if main_index is not None and with_patcher:
            body = list(new_module.body)
            position = main_index + len(block)
            updated_main = body[position]
            assert isinstance(updated_main, cst.If)
            body[position] = self._apply_in_main(updated_main)
            new_module = new_module.with_changes(body=body)
        return new_module, _Block(len(block), at_top)

    # An earlier version's block ------------------------------------------------------
    def _earlier_block(self, body: Sequence[Statement]) -> tuple[int, int] | None:
        """(first, end) of the top-level statements of a set-up block this rule wrote (its
        marker comment on a `try` that imports only the set-up modules), or None."""
        for first, statement in enumerate(body):
            if (
                isinstance(statement, cst.Try)
                and _marked(statement)
                and self._imports_setup(statement)
            ):
                end = first + 1
                while end < len(body) and not _ends_block(body[end]) and self._ours(body[end]):
                    end += 1
                return first, end
        return None

    def _ours(self, statement: cst.BaseStatement) -> bool:
        if isinstance(statement, cst.Try):
            return self._imports_setup(statement)
        return self._is_application(statement)

    def _imports_setup(self, statement: cst.Try) -> bool:
        """A `try` whose body only imports the runtime, its safety net or the patcher."""
        setup = (self.target.runtime_module, self.target.patcher_module)
        lines = statement.body.body
        return bool(lines) and all(
            isinstance(line, cst.SimpleStatementLine)
            and all(
                (
                    isinstance(small, cst.Import)
                    and all(
                        (dotted_name(alias.name) or "").split(".", 1)[0]
                        == self.target.runtime_module
                        for alias in small.names
                    )
                )
                or (
                    isinstance(small, cst.ImportFrom)
                    and small.module is not None
                    and (dotted_name(small.module) or "") in setup
                )
                for small in line.body
            )
            for line in lines
        )

    def _is_application(self, statement: cst.BaseStatement) -> bool:
        """The patcher applied by this rule: `if <patcher> is not None:` under its marker."""
        name = self.target.patcher_name
        return (
            isinstance(statement, cst.If)
            and _marked(statement)
            and _is_not_none_test(statement.test, name)
        )

    def _had_patcher(self, statements: Sequence[cst.BaseStatement]) -> bool:
        return any(
            isinstance(node, cst.ImportFrom)
            and node.module is not None
            and dotted_name(node.module) == self.target.patcher_module
            for statement in statements
            if isinstance(statement, cst.Try)
            for line in statement.body.body
            if isinstance(line, cst.SimpleStatementLine)
            for node in line.body
        )

    def _refresh(
        self, original: cst.Module, updated: cst.Module, first: int, end: int
    ) -> cst.Module:
        """Rewrite an earlier version's set-up block (and its patcher line in the main
        block) to the current form; nothing when it already is."""
        target = self.target
        anchor = original.body[first]
        if self._suppressed(anchor):
            return updated
        safety_net, with_patcher = self._wants()
        had_patcher = self._had_patcher(original.body[first:end])
        body = list(updated.body)
        if end < len(body):
            body[end] = _without_end_marker(body[end])
        main_index = self._main_index(original)
        if main_index is not None:
            main = body[main_index]
            assert isinstance(main, cst.If)
            body[main_index] = self._without_application(main)
            main_index -= end - first
        # Comments of the user's own above the block stay above it.
        kept = [line for line in _before_marker(body[first]) if line.comment is not None]
        stripped = updated.with_changes(body=[*body[:first], *body[end:]])
        new_module, _ = self._install(stripped, first, main_index, safety_net, with_patcher)
        if kept:
            new_body = list(new_module.body)
            new_body[first] = new_body[first].with_changes(
                leading_lines=[*kept, *new_body[first].leading_lines]
            )
            new_module = new_module.with_changes(body=new_body)
        if new_module.code == updated.code:
            return updated
        why = ""
        if had_patcher and not with_patcher:
            why = f"; {_package(target.patcher_module)}'s patcher dropped ({self._no_patcher()})"
        self.edit(
            anchor,
            anchor,
            anchor,
            "set-up block written by an earlier version of the migration rewritten to the "
            f"current form: where {target.runtime_module} cannot load, the script stops with "
            f"what to do{why}",
        )
        self._warn_patcher_left_out(anchor)
        return new_module

    def _no_patcher(self) -> str:
        if not self.ctx.options.transfer_to_npu:
            return f"{self.target.safety_net_module} is turned off"
        if self.ctx.options.patcher == "none":
            return "--patcher none"
        return "the project imports none of " + ", ".join(_MM_PACKAGES)

    def _without_application(self, main: cst.If) -> cst.If:
        if not isinstance(main.body, cst.IndentedBlock):
            return main
        lines = list(main.body.body)
        if lines and self._is_application(lines[0]) and len(lines) > 1:
            return main.with_changes(body=main.body.with_changes(body=lines[1:]))
        return main

    def _top_block(
        self, safety_net: bool, with_patcher: bool, apply_at_top: bool
    ) -> list[Statement]:
        target = self.target
        package = _package(target.patcher_module)
        imports = [f"    import {target.runtime_module}  # noqa: F401"]
        what, subject = f"the {target.name} runtime loads", "it cannot"
        if safety_net:
            imports.append(f"    import {target.safety_net_module}  # noqa: F401")
            what, subject = f"the {target.name} runtime and its safety net load", "they cannot"
        text = (
            f"{_MARK}: {what} before anything builds a device, an accelerator or a process "
            f"group; where {subject}, the script stops here and says what to do."
        )
        if with_patcher:
            text += (
                f" The {package} patcher is optional: without {package} the script runs unpatched."
            )
        # No import statement at the top level of the block: imports that other rules
        # request are added by the engine after the file's last top-level import, which
        # must not be inside this block.
        lines = [
            "try:",
            *imports,
            f"except {_CAUGHT} as error:",
            "    raise ImportError(",
            *(f"        {_quoted(piece)}" for piece in _pieces(self._failure())),
            "    ) from error",
        ]
        if with_patcher:
            lines += [
                "try:",
                f"    from {target.patcher_module} import {target.patcher_name}",
                "except ModuleNotFoundError as error:",
                f'    if error.name != "{package}":',
                "        raise",
                f"    {target.patcher_name} = None",
            ]
        statements = list(cst.parse_module("\n".join([*lines, ""])).body)
        statements[0] = statements[0].with_changes(leading_lines=_comment_lines(_wrap(text)))
        if apply_at_top:
            statements.append(self._patcher_statement())
        return statements

    def _failure(self) -> str:
        """What the stopped script says: how to set up the runtime, and which to install."""
        target = self.target
        release = self.ctx.project.target_release.version
        torch_version = data.torch_npu_release(release).torch_version
        setup = f"{target.runtime_setup}, and " if target.runtime_setup else ""
        return (
            f"{target.runtime_module} did not load: {setup}install the "
            f"{target.runtime_requirement} release that matches the installed torch (this "
            f"migration targeted {target.runtime_requirement} {release}, for torch "
            f"{torch_version})"
        )

    def _patcher_statement(self) -> Statement:
        package = _package(self.target.patcher_module)
        name = self.target.patcher_name
        statement = cst.parse_module(
            f"if {name} is not None:\n    {name}.build().__enter__()\n"
        ).body[0]
        comment = _wrap(
            f"{_MARK}: apply the {package} patches first, as entering "
            f"`with {name}.build():` does (its exit undoes nothing)."
        )
        return statement.with_changes(leading_lines=_comment_lines(comment))

    def _apply_in_main(self, main: cst.If) -> cst.If:
        statement = self._patcher_statement()
        if isinstance(main.body, cst.IndentedBlock):
            return main.with_changes(body=main.body.with_changes(body=[statement, *main.body.body]))
        assert isinstance(main.body, cst.SimpleStatementSuite)
        rest = cst.SimpleStatementLine(
            body=main.body.body, trailing_whitespace=main.body.trailing_whitespace
        )
        return main.with_changes(body=cst.IndentedBlock(body=[statement, rest]))


def _splice(module: cst.Module, index: int, block: list[Statement]) -> cst.Module:
    """Insert `block` before statement `index`, with a blank line and an end marker."""
    header = list(module.header)
    body = list(module.body)
    moved: list[cst.EmptyLine] = []
    if index == 0:
        # Comments right above the first statement (after the header's last blank line)
        # describe that statement, not the file: they stay with it, below the block.
        blank = max((i for i, line in enumerate(header) if line.comment is None), default=-1)
        if blank >= 0:
            moved = header[blank + 1 :]
            header = header[: blank + 1]
    blank_above = index == 0 and bool(header) and header[-1].comment is None
    if (index > 0 or header) and not blank_above:
        block[0] = block[0].with_changes(leading_lines=[cst.EmptyLine(), *block[0].leading_lines])
    if index < len(body):
        following = body[index]
        lines = [*moved, *following.leading_lines]
        spacer = [] if lines and lines[0].comment is None else [cst.EmptyLine()]
        end = _comment_lines([_END])
        body[index] = following.with_changes(leading_lines=[*end, *spacer, *lines])
    body[index:index] = block
    return module.with_changes(header=header, body=body)


@dataclass(frozen=True)
class _Block:
    """The statements inserted at the top, and whether the patcher is applied among them."""

    size: int
    at_top: bool


def _package(module: str) -> str:
    return module.split(".", 1)[0]


def _pieces(text: str) -> list[str]:
    """`text` in pieces of at most 72 characters, cut after a space, that join back to it."""
    return textwrap.wrap(
        text, width=72, break_long_words=False, break_on_hyphens=False, drop_whitespace=False
    )


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _marked(statement: Statement) -> bool:
    return any(
        line.comment is not None and line.comment.value.startswith(f"# {_MARK}")
        for line in statement.leading_lines
    )


def _before_marker(statement: Statement) -> list[cst.EmptyLine]:
    lines = list(statement.leading_lines)
    for position, line in enumerate(lines):
        if line.comment is not None and line.comment.value.startswith(f"# {_MARK}"):
            return lines[:position]
    return lines


def _ends_block(statement: Statement) -> bool:
    return any(
        line.comment is not None and line.comment.value == f"# {_END}"
        for line in statement.leading_lines
    )


def _without_end_marker(statement: Statement) -> Statement:
    """The statement after the block without the end marker and the blank line under it
    (inserting the block again puts both back)."""
    lines = list(statement.leading_lines)
    if lines and lines[0].comment is not None and lines[0].comment.value == f"# {_END}":
        lines = lines[1:]
        if lines and lines[0].comment is None:
            lines = lines[1:]
    return statement.with_changes(leading_lines=lines)


def _is_optimizer(name: str) -> bool:
    parts = name.split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "optim"] and parts[2][:1].isupper()


_RUNNERS = frozenset({"main", "train", "run", "fit", "launch", "cli"})


def _from_training_module(name: str) -> bool:
    """`pkg.train.main`: a runner function imported from a module with "train" in its path."""
    *modules, function = name.split(".")
    runs = function in _RUNNERS or "train" in function.lower()
    return runs and any("train" in part.lower() for part in modules)
