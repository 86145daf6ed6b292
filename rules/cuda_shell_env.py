"""CUDA and NCCL environment variables in shell and Slurm scripts."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fractions import Fraction

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill
from migrator.core.model import Finding, TextEdit
from migrator.core.target import EnvMapping
from migrator.formats.shell import (
    ASSIGNMENT,
    NAME,
    SCRIPT_PATTERNS,
    Command,
    Literal,
    Script,
    Word,
    line_starts,
    parse,
    position,
    unquote,
)

_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
# Programs whose `-c` argument is code (a mention of a variable there is code too).
_CODE_RUNNERS = re.compile(r"^(?:sh|bash|zsh|dash|ksh|python[0-9.]*)$")
_LOGGERS = frozenset({"echo", "printf"})
_INTEGER = re.compile(r"^(?P<quote>['\"]?)(?P<digits>\d+)(?P=quote)$")


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str
    message: str
    review: bool


class CudaShellEnv(TextRule):
    """Rename CUDA and NCCL environment variables in shell and Slurm scripts to the
    target's, scaling literal values where the units differ.

    What it does, in `*.sh`, `*.bash`, `*.zsh`, `*.sbatch` and `*.slurm` files, for every
    variable the target maps (`Target.env`: `CUDA_VISIBLE_DEVICES` ->
    `ASCEND_RT_VISIBLE_DEVICES`, `CUDA_LAUNCH_BLOCKING`, `PYTORCH_CUDA_ALLOC_CONF`,
    `NCCL_SOCKET_IFNAME` -> `HCCL_SOCKET_IFNAME`, `NCCL_BUFFSIZE` -> `HCCL_BUFFSIZE`, ...;
    each row of the table names the documentation of both variables):

    - assignments: `export NAME=...` (also `declare -x`, `local`, `readonly`, several names
      in one `export`), plain `NAME=...`, and command prefixes `NAME=... cmd` including a
      prefix on its own line before a `\\` continuation;
    - `unset NAME`, `export NAME`, `env NAME=... cmd`, `env -u NAME cmd`;
    - expansions `$NAME`, `${NAME}`, `${NAME:-0}`, `${#NAME}`, also inside double quotes
      and `$(...)`.

    Where the units differ (`NCCL_BUFFSIZE` is in bytes, `HCCL_BUFFSIZE` in MB) a literal
    integer value is scaled (`4194304` -> `4`); a value that is not a literal integer, or
    does not scale to a whole number, is left as it is with a warning, and so is an
    expansion of such a variable. `NCCL_*` variables the target does not map, and mapped
    ones with no equivalent (`NCCL_DEBUG`, `CUDA_HOME`, ...), are reported where they are
    set, with their value and the note the target gives. NCCL variables are mapped only
    where the NCCL guide documents them and the HCCL guide a counterpart: `NCCL_TIMEOUT`
    and `NCCL_SOCKET_TIMEOUT_MS`, common in launch scripts, are neither NCCL's nor
    HCCL's, so they are reported and HCCL's own timeouts keep their defaults (no value is
    guessed for them).

    Why: torch-npu and HCCL read their own variables: `CUDA_VISIBLE_DEVICES` does not hide
    NPUs (so every process sees every card) and `NCCL_*` settings are ignored by HCCL.
    `transfer_to_npu` does not touch the environment.

    Example: `export NCCL_BUFFSIZE=4194304` -> `export HCCL_BUFFSIZE=4`;
    `CUDA_VISIBLE_DEVICES=${GPU_ID} \\` -> `ASCEND_RT_VISIBLE_DEVICES=${GPU_ID} \\`.

    Safety: safe for one-to-one renames; an edit whose mapping carries a note (other
    semantics or units, e.g. the NCCL -> HCCL buffer size) is flagged needs review.

    Limits (what is not rewritten):

    - comments, and text in single quotes or `$'...'`: the shell does not expand it here;
    - text in double quotes other than expansions (`echo "CUDA_VISIBLE_DEVICES=$X"` keeps
      its log text; the `$X` expansion is renamed if mapped);
    - code in strings run later (`eval "export CUDA_VISIBLE_DEVICES=0"`,
      `bash -c '...'`, `python -c '...'`, `ssh host '...'`): a mention that looks like code
      (`NAME=`, `$NAME`, `export NAME`, `"NAME"`) is reported, not rewritten;
    - heredoc bodies (a script or Python written out by `cat <<EOF`): code-like mentions
      are reported, never rewritten, quoted delimiter or not;
    - a mapped name as a plain argument (`srun --export=ALL,CUDA_VISIBLE_DEVICES=0`,
      `printenv CUDA_VISIBLE_DEVICES`) is reported; arguments of `echo`/`printf` are log
      text and left alone;
    - files that are not named like shell scripts (a shebang alone is not read).
    """

    code = "NPU100"
    action = "host-setup"
    name = "cuda-shell-env"
    summary = (
        "Rename CUDA/NCCL env variables in shell scripts (CUDA_VISIBLE_DEVICES, documented NCCL_*)."
    )
    trigger = Trigger(tokens=("CUDA", "NCCL"), unit=Unit.FILE, files=SCRIPT_PATTERNS)
    examples = (
        Example(
            "export CUDA_VISIBLE_DEVICES=0,1\nexport NCCL_BUFFSIZE=4194304\n",
            "export ASCEND_RT_VISIBLE_DEVICES=0,1\nexport HCCL_BUFFSIZE=4\n",
            "run.sh",
        ),
        Example(
            'CUDA_VISIBLE_DEVICES=${GPU_ID} \\\n    python serve.py --port "$PORT"\n',
            'ASCEND_RT_VISIBLE_DEVICES=${GPU_ID} \\\n    python serve.py --port "$PORT"\n',
            "serve.sh",
        ),
        Example(
            "# export CUDA_VISIBLE_DEVICES=0\necho 'set CUDA_VISIBLE_DEVICES first'\n",
            None,
            "run.sh",
        ),
    )

    def check(self, text: str) -> list[Finding]:
        script = parse(text)
        self._starts = line_starts(text)
        self._text = text
        self._found: list[Finding] = []
        edits: list[_Edit] = []
        for command in script.commands:
            edits.extend(self._command(script, command))
        for expansion in script.expansions:
            mapping = self.target.env_mapping(expansion.name)
            if mapping is None or mapping.target is None:
                continue
            if mapping.scale != 1:
                self._warn(
                    expansion.start - 1,
                    f"${expansion.name} not rewritten: {mapping.target} takes another unit",
                    _scale_hint(mapping),
                )
                continue
            edits.append(
                _Edit(
                    expansion.start,
                    expansion.end,
                    mapping.target,
                    f"${expansion.name} -> ${mapping.target}",
                    bool(mapping.note),
                )
            )
        for literal in script.literals:
            self._literal(script, literal)
        return self._found + [self._change(edit) for edit in edits]

    # Positions ------------------------------------------------------------------------
    def _where(self, offset: int) -> tuple[int, int]:
        return position(self._starts, offset)

    def _warn(self, offset: int, message: str, suggestion: str) -> None:
        line, col = self._where(offset)
        self._found.append(self.warning(line, col, message, suggestion))

    def _change(self, edit: _Edit) -> Finding:
        line, col = self._where(edit.start)
        fix = TextEdit(edit.start, edit.end, edit.text)
        return self.change(line, col, edit.message, fix, review=edit.review or None)

    # Commands -------------------------------------------------------------------------
    def _command(self, script: Script, command: Command) -> list[_Edit]:
        assignments, name_word, arguments = command.parts()
        edits = [e for word in assignments for e in self._assignment(word)]
        if name_word is None:
            return edits
        name = unquote(name_word.text)
        if name in _DECLARERS:
            for word in arguments:
                if word.text.startswith("-"):
                    continue
                if ASSIGNMENT.match(word.text):
                    edits.extend(self._assignment(word))
                else:
                    edits.extend(self._bare_name(word, word.start, word.text))
        elif name == "unset":
            for word in arguments:
                if word.text == "-f":
                    break
                if not word.text.startswith("-"):
                    edits.extend(self._bare_name(word, word.start, word.text))
        elif name == "env":
            edits.extend(self._env(arguments))
        elif name not in _LOGGERS:
            for word in arguments:
                self._mentions(script, word, name)
        return edits

    def _env(self, arguments: list[Word]) -> list[_Edit]:
        edits: list[_Edit] = []
        unset_next = False
        for word in arguments:
            if unset_next:
                edits.extend(self._bare_name(word, word.start, word.text))
                unset_next = False
            elif word.text in ("-u", "--unset"):
                unset_next = True
            elif word.text.startswith("--unset="):
                offset = len("--unset=")
                edits.extend(self._bare_name(word, word.start + offset, word.text[offset:]))
            elif word.text.startswith("-"):
                continue
            elif ASSIGNMENT.match(word.text):
                edits.extend(self._assignment(word))
            else:
                break
        return edits

    def _bare_name(self, word: Word, start: int, name: str) -> list[_Edit]:
        """`export NAME` / `unset NAME`: rename, or report a name with no equivalent."""
        if NAME.fullmatch(name) is None:
            return []
        mapping = self.target.env_mapping(name)
        if mapping is None:
            return []
        if mapping.target is None:
            self._no_equivalent(start, mapping)
            return []
        return [
            _Edit(
                start,
                start + len(name),
                mapping.target,
                f"{name} -> {mapping.target}",
                bool(mapping.note or mapping.scale != 1),
            )
        ]

    def _assignment(self, word: Word) -> list[_Edit]:
        match = ASSIGNMENT.match(word.text)
        assert match is not None
        name = match.group("name")
        mapping = self.target.env_mapping(name)
        if mapping is None:
            return []
        value = word.text[match.end() :]
        if mapping.target is None:
            self._no_equivalent(word.start, mapping, value)
            return []
        note = f"; {mapping.note}" if mapping.note else ""
        if mapping.scale == 1:
            return [
                _Edit(
                    word.start,
                    word.start + len(name),
                    mapping.target,
                    f"{name} -> {mapping.target}{note}",
                    bool(mapping.note),
                )
            ]
        number = _INTEGER.match(value)
        scaled = int(number.group("digits")) * _fraction(mapping.scale) if number else None
        if number is None or scaled is None or scaled.denominator != 1:
            shown = f"={value}" if value else ""
            self._warn(
                word.start,
                f"{name}{shown} not rewritten: {mapping.target} takes another unit"
                + ("" if number is None else f" and {value} does not scale to a whole number"),
                _scale_hint(mapping),
            )
            return []
        # One edit from the name to the digits keeps `=`/`+=` and the quote as written.
        digits_at = match.end() + len(number.group("quote"))
        new_value = str(scaled.numerator)
        return [
            _Edit(
                word.start,
                word.start + digits_at + len(number.group("digits")),
                mapping.target + word.text[len(name) : digits_at] + new_value,
                f"{name}={value} -> {mapping.target}={new_value}{note}",
                True,
            )
        ]

    def _no_equivalent(self, offset: int, mapping: EnvMapping, value: str | None = None) -> None:
        # The value is part of the report: it is what the user has to carry over by hand.
        shown = f"={value}" if value else ""
        device = fill("{DEVICE}", self.target)
        self._warn(
            offset,
            f"{mapping.source}{shown} left as it is: no {device} equivalent",
            self._no_equivalent_hint(mapping),
        )

    def _no_equivalent_hint(self, mapping: EnvMapping) -> str:
        prefix = self.target.env_prefix
        if mapping.source in self.target.env:
            return mapping.note or "drop it"
        if prefix is not None:
            return f"look for a matching {prefix[1]}* variable, or drop it"
        return "drop it"

    # Mentions the rule does not rewrite -----------------------------------------------
    def _mentions(self, script: Script, word: Word, command_name: str) -> None:
        for match in NAME.finditer(word.text):
            offset = word.start + match.start()
            before = word.text[match.start() - 1] if match.start() > 0 else ""
            if before and (before.isalnum() or before in "$_{#!"):
                continue
            if script.in_literal(offset) or script.in_nested(offset, word):
                continue
            mapping = self.target.env_mapping(match.group())
            if mapping is not None:
                self._not_rewritten(offset, mapping, f"an argument of {command_name}")

    def _literal(self, script: Script, literal: Literal) -> None:
        if literal.kind == "double" and not _runs_code(literal.command):
            return
        if literal.kind == "single" and not _runs_code(literal.command):
            return
        body = self._text[literal.start : literal.end]
        where = "a heredoc" if literal.kind == "heredoc" else "a string run as code"
        for match in _CODE_LIKE.finditer(body):
            group = match.lastgroup or "name"
            mapping = self.target.env_mapping(match.group(group))
            if mapping is not None:
                self._not_rewritten(literal.start + match.start(group), mapping, where)

    def _not_rewritten(self, offset: int, mapping: EnvMapping, where: str) -> None:
        if mapping.target is None:
            suggestion = self._no_equivalent_hint(mapping)
        elif mapping.scale != 1:
            suggestion = _scale_hint(mapping)
        else:
            suggestion = f"rename it to {mapping.target} by hand"
        self._warn(offset, f"{mapping.source} in {where} is not rewritten", suggestion)


_CODE_LIKE = re.compile(
    r"\$\{?[#!]?(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?<![A-Za-z0-9_])(?P<assigned>[A-Za-z_][A-Za-z0-9_]*)="
    r"|(?:export|unset)\s+(?P<declared>[A-Za-z_][A-Za-z0-9_]*)"
    r"|['\"](?P<quoted>[A-Za-z_][A-Za-z0-9_]*)['\"]"
)


def _runs_code(command: Command) -> bool:
    """`eval ...`, `bash -c ...`, `python -c ...`, `ssh host ...`: strings run as code."""
    words = command.plain_words()
    if "eval" in words or "ssh" in words:
        return True
    return "-c" in words and any(_CODE_RUNNERS.match(os.path.basename(w)) for w in words)


def _fraction(scale: float) -> Fraction:
    return Fraction(scale).limit_denominator(10**9)


def _scale_hint(mapping: EnvMapping) -> str:
    """`use HCCL_BUFFSIZE with the value divided by 1048576; <note>`."""
    factor = _fraction(mapping.scale)
    if factor.denominator == 1:
        change = f"multiplied by {factor.numerator}"
    elif factor.numerator == 1:
        change = f"divided by {factor.denominator}"
    else:
        change = f"multiplied by {factor.numerator}/{factor.denominator}"
    note = f"; {mapping.note}" if mapping.note else ""
    return f"use {mapping.target} with the value {change}{note}"
