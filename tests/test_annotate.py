"""--annotate: `# NPU-TODO(CODE): action` above the statement of each warning, kept in step."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator.formats.textlines import style_for
from tests.helpers import invoke

pytestmark = pytest.mark.usefixtures("fixture_rules")

TODO = "# NPU-TODO(TST050): use npu_fusion_attention"


def migrate(tmp_path: Path, name: str, text: str | bytes, *flags: str) -> str:
    root = tmp_path / "p"
    root.mkdir(exist_ok=True)
    file = root / name
    if isinstance(text, bytes):
        file.write_bytes(text)
    else:
        file.write_text(text)
    result = invoke(str(root), "--allow-no-vcs", "--annotate", *flags)
    assert result.exit_code == 0, result.stderr
    again = invoke(str(root), "--annotate", "--check")
    assert again.exit_code == 0, "a second run must change nothing (no duplicate TODO)"
    return file.read_text()


def test_off_by_default(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    source = "import flash_attn\nflash_attn.flash_attn_func(q)\n"
    (root / "a.py").write_text(source)
    result = invoke(str(root), "--check")
    assert result.exit_code == 0, "warnings alone change nothing unless --annotate"
    assert "TST050 warning" in result.stderr
    assert (root / "a.py").read_text() == source


def test_above_the_enclosing_statement_with_its_indentation(tmp_path: Path) -> None:
    source = (
        "import flash_attn\n"
        "\n"
        "\n"
        "class Block:\n"
        "    def forward(self, q):\n"
        "        if q is not None:\n"
        "            out = self.norm(flash_attn.flash_attn_func(\n"
        "                q, q, q))\n"
        "        return out\n"
    )
    after = migrate(tmp_path, "a.py", source)
    assert after.splitlines()[5:8] == [
        "        if q is not None:",
        f"            {TODO}",
        "            out = self.norm(flash_attn.flash_attn_func(",
    ]


def test_never_inside_a_backslash_continuation_or_a_string(tmp_path: Path) -> None:
    source = (
        "import flash_attn\n"
        "x = 1; \\\n"
        "    y = flash_attn.flash_attn_func(q)\n"
        'log("""\n'
        "text\n"
        '""", flash_attn.flash_attn_func(k))\n'
        "total = 1 + \\\n"
        "    flash_attn.flash_attn_func(v)\n"
    )
    after = migrate(tmp_path, "a.py", source)
    assert after == (
        "import flash_attn\n"
        f"{TODO}\n"
        "x = 1; \\\n"
        "    y = flash_attn.flash_attn_func(q)\n"
        f"{TODO}\n"
        'log("""\n'
        "text\n"
        '""", flash_attn.flash_attn_func(k))\n'
        f"{TODO}\n"
        "total = 1 + \\\n"
        "    flash_attn.flash_attn_func(v)\n"
    )


def test_decorated_function_gets_it_above_the_decorator(tmp_path: Path) -> None:
    source = "import flash_attn\n\n\n@register(flash_attn.flash_attn_func(1))\ndef f():\n    pass\n"
    after = migrate(tmp_path, "a.py", source)
    assert after.splitlines()[3:5] == [TODO, "@register(flash_attn.flash_attn_func(1))"]


def test_one_todo_per_statement_and_code(tmp_path: Path) -> None:
    source = "import flash_attn\nz = flash_attn.flash_attn_func(flash_attn.flash_attn_func(1))\n"
    after = migrate(tmp_path, "a.py", source)
    assert after.count("NPU-TODO") == 1


def test_stale_todo_is_removed_when_the_construct_is_gone(tmp_path: Path) -> None:
    source = "import flash_attn\nz = flash_attn.flash_attn_func(q)\n"
    after = migrate(tmp_path, "a.py", source)
    assert TODO in after
    root = tmp_path / "p"
    (root / "a.py").write_text(after.replace("flash_attn.flash_attn_func(q)", "attend(q)"))
    result = invoke(str(root), "--allow-no-vcs", "--annotate")
    assert "TODO comments: 0 added, 1 removed" in result.stderr
    assert (root / "a.py").read_text() == "import flash_attn\nz = attend(q)\n"


def test_stale_todo_in_a_file_without_rule_tokens_is_removed(tmp_path: Path) -> None:
    """The fast path would skip this file: the TODO marker itself brings it in."""
    source = f"def f():\n    {TODO}\n    return 1\n"
    after = migrate(tmp_path, "a.py", source)
    assert after == "def f():\n    return 1\n"


def test_todo_written_by_hand_in_a_string_is_left_alone(tmp_path: Path) -> None:
    source = f'DOC = """\n{TODO}\n"""\n'
    assert migrate(tmp_path, "a.py", source) == source


def test_positions_follow_lines_inserted_by_entry_set_up(tmp_path: Path) -> None:
    source = "import flash_attn\n\nif __name__ == '__main__':\n    flash_attn.flash_attn_func(q)\n"
    after = migrate(tmp_path, "train.py", source)
    assert after == (
        "import torch_npu\n"
        "from torch_npu.contrib import transfer_to_npu\n"
        "import flash_attn\n"
        "\n"
        "if __name__ == '__main__':\n"
        f"    {TODO}\n"
        "    flash_attn.flash_attn_func(q)\n"
    )


def test_warning_lines_in_messages_refer_to_the_input(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "train.py").write_text(
        "import flash_attn\nif __name__ == '__main__':\n    flash_attn.flash_attn_func(q)\n"
    )
    result = invoke(str(root), "--annotate", "--dry-run")
    assert "train.py:3:5: TST050 warning" in result.stderr
    assert f"+    {TODO}" in result.stdout


def test_crlf_file_gets_crlf_todo_lines(tmp_path: Path) -> None:
    source = b"import flash_attn\r\nflash_attn.flash_attn_func(q)\r\n"
    migrate(tmp_path, "a.py", source)
    data = (tmp_path / "p" / "a.py").read_bytes()
    assert (
        data == b"import flash_attn\r\n" + TODO.encode() + b"\r\nflash_attn.flash_attn_func(q)\r\n"
    )


def test_shell_script_todo_above_the_continued_command(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\n"
        'if [ -n "$CHECK" ]; then\n'
        "    nvidia-smi\n"
        "fi\n"
        "torchrun \\\n"
        "  --nproc $(nvidia-smi -L | wc -l) \\\n"
        "  train.py\n"
        "cat <<EOF > info.txt\n"
        "nvidia-smi\n"
        "EOF\n"
    )
    after = migrate(tmp_path, "run.sh", script)
    todo = "# NPU-TODO(TST100): use npu-smi info"
    assert after == (
        "#!/bin/bash\n"
        'if [ -n "$CHECK" ]; then\n'
        f"    {todo}\n"
        "    nvidia-smi\n"
        "fi\n"
        f"{todo}\n"
        "torchrun \\\n"
        "  --nproc $(nvidia-smi -L | wc -l) \\\n"
        "  train.py\n"
        f"{todo}\n"
        "cat <<EOF > info.txt\n"
        "nvidia-smi\n"
        "EOF\n"
    )


def test_requirements_todo_above_the_continued_requirement(tmp_path: Path) -> None:
    text = "torch==2.5.1\nflash-attn==2.6.3 \\\n    --hash=sha256:00\nnumpy\n"
    after = migrate(tmp_path, "requirements.txt", text)
    assert after == (
        "torch==2.5.1\n"
        "# NPU-TODO(TST101): remove it\n"
        "flash-attn==2.6.3 \\\n"
        "    --hash=sha256:00\n"
        "numpy\n"
    )


def test_explain_accepts_the_todo_marker() -> None:
    result = invoke("--explain", "NPU-TODO(NPU001)")
    assert result.exit_code == 0
    assert result.stdout.startswith("NPU001 autocast-device")


@pytest.mark.parametrize(
    ("path", "style"),
    [
        ("a.py", "python"),
        ("nb.ipynb", "python"),
        ("scripts/run.sh", "shell"),
        ("requirements-dev.txt", "requirements"),
        ("configs/train.yaml", None),
        ("config.json", None),
        ("notes.txt", None),
    ],
)
def test_which_files_get_todo_comments(path: str, style: str | None) -> None:
    assert style_for(path) == style


def test_shebang_makes_a_shell_script() -> None:
    assert style_for("tools/launch", "#!/usr/bin/env bash\necho\n") == "shell"
