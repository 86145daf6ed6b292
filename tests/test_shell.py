"""The shell lexer behind the script rules: what it sees as commands, expansions, literals."""

from __future__ import annotations

from migrator.formats.shell import Script, line_starts, parse, position
from migrator.formats.textlines import command_spans


def _names(script: Script) -> list[str | None]:
    return [command.name() for command in script.commands]


def _literal_texts(script: Script, kind: str) -> list[str]:
    return [script.text[lit.start : lit.end] for lit in script.literals if lit.kind == kind]


def test_prefix_assignments_continue_across_backslash_newlines() -> None:
    script = parse("A=1 \\\n  CUDA_VISIBLE_DEVICES=${GPU} \\\n  python x.py --port 1\n")
    (command,) = script.commands
    assignments, name, arguments = command.parts()
    assert [word.text for word in assignments] == ["A=1", "CUDA_VISIBLE_DEVICES=${GPU}"]
    assert name is not None and name.text == "python"
    assert [word.text for word in arguments] == ["x.py", "--port", "1"]


def test_separators_split_commands_and_reserved_words_are_skipped() -> None:
    script = parse("if true; then X=1 run a & fi\nfor i in 1; do Y=2 go; done | cat\n")
    assert _names(script) == ["true", "run", None, "for", "go", None, "cat"]


def test_expansions_are_found_in_every_context() -> None:
    text = 'echo "$A ${B:-0} ${#C}" $D `echo $E` $(echo "$F") $((G + $H)) ${I:-$J} \'$K\'\n'
    found = [expansion.name for expansion in parse(text).expansions]
    assert found == ["A", "B", "C", "D", "E", "F", "H", "I", "J"]
    for expansion in parse(text).expansions:
        assert text[expansion.start : expansion.end] == expansion.name


def test_single_quotes_and_ansi_strings_are_literal() -> None:
    script = parse("echo '$A \"x\"' $'b\\'$C'\n")
    assert [e.name for e in script.expansions] == []
    assert _literal_texts(script, "single") == ['$A "x"', "b\\'$C"]


def test_double_quoted_text_between_expansions_is_literal() -> None:
    script = parse('echo "X=$Y and\nmore"\n')
    assert _literal_texts(script, "double") == ["X=", " and\nmore"]
    assert [e.name for e in script.expansions] == ["Y"]


def test_comments_are_skipped_but_hash_inside_a_word_is_not() -> None:
    script = parse("# A=1 $B\necho a#b $#  # $C\n")
    assert [e.name for e in script.expansions] == []
    (command,) = script.commands
    assert [word.text for word in command.words] == ["echo", "a#b", "$#"]


def test_heredoc_bodies_are_literal_and_scanning_resumes_after_them() -> None:
    text = "cat <<'EOF' > f\nexport A=$B\nEOF\ncat <<-END\n\tC=$D\n\tEND\nexport E=$F\n"
    script = parse(text)
    assert _literal_texts(script, "heredoc") == ["export A=$B\n", "\tC=$D\n"]
    assert [e.name for e in script.expansions] == ["F"]
    assert _names(script)[-1] == "export"


def test_here_strings_are_not_heredocs() -> None:
    script = parse('read -ra X <<< "$A"\necho $B\n')
    assert [e.name for e in script.expansions] == ["A", "B"]
    assert _literal_texts(script, "heredoc") == []


def test_nested_substitutions_balance_parentheses() -> None:
    script = parse("X=$(cd d && (ls; echo $A) | wc -l) Y=$B\n")
    assert [e.name for e in script.expansions] == ["A", "B"]
    outer = script.commands[0]
    assert [word.text for word in outer.words][-1] == "Y=$B"


def test_unbalanced_quotes_run_to_the_end() -> None:
    script = parse("echo 'never closed $A\n")
    assert [e.name for e in script.expansions] == []
    assert _literal_texts(script, "single") == ["never closed $A\n"]


def test_positions_are_one_based_and_handle_crlf() -> None:
    text = "a\r\nbc\r\nd"
    starts = line_starts(text)
    assert position(starts, text.index("c")) == (2, 2)
    assert position(starts, text.index("d")) == (3, 1)


# Command lines (what suppressions and inserted TODO comments work on) come from the same
# lexer. The shapes below are ones the old line scanner of textlines.py got wrong.
def _spans(text: str) -> list[tuple[int, int]]:
    return command_spans(text, "shell")


def test_command_lines_join_continuations_open_quotes_and_heredoc_bodies() -> None:
    text = "A=1 \\\n  python x.py\necho 'a\nb'\ncat <<-EOF\n\tbody\n\tEOF\nls\n"
    assert _spans(text) == [(1, 2), (1, 2), (3, 4), (3, 4), (5, 7), (5, 7), (5, 7), (8, 8)]


def test_a_comment_ending_in_a_backslash_does_not_continue() -> None:
    assert _spans("# usage: run.sh \\\npython train.py\n") == [(1, 1), (2, 2)]


def test_heredocs_with_escaped_or_quoted_delimiters_hold_their_bodies() -> None:
    for opener in ("<<\\EOF", "<<'END-OF'", '<< "my doc"'):
        delimiter = opener.lstrip("<\\ ").strip("'\"")
        text = f"cat {opener} > x.py\nimport torch\n{delimiter}\npython x.py\n"
        assert _spans(text) == [(1, 3), (1, 3), (1, 3), (4, 4)], opener


def test_a_comment_after_a_separator_hides_its_quotes() -> None:
    assert _spans("cd x;# it's here\npython a.py\n") == [(1, 1), (2, 2)]


def test_a_shift_in_arithmetic_is_not_a_heredoc() -> None:
    assert _spans("N=$((x << y))\npython a.py\ny\n") == [(1, 1), (2, 2), (3, 3)]
    assert parse("N=$((1<<2))\ncat <<EOF\nbody\nEOF\n").literals[0].kind == "heredoc"


def test_a_substitution_inside_double_quotes_is_one_command_line() -> None:
    text = 'X="$(python -c "\nprint(1)\n")"\npython a.py\n'
    assert _spans(text) == [(1, 3), (1, 3), (1, 3), (4, 4)]


def test_command_lines_keep_crlf_and_lone_carriage_returns_as_line_ends() -> None:
    assert _spans("a=1 \\\r\nb\r\nc\n") == [(1, 2), (1, 2), (3, 3)]
    assert _spans("a=1\rpython a.py\rb\n") == [(1, 1), (2, 2), (3, 3)]
