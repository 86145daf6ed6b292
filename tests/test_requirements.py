"""The requirements-file reader: logical entries over physical lines, nothing lost."""

from __future__ import annotations

from migrator.formats.requirements import normalize, parse, release
from migrator.formats.sources import split_lines


def test_names_are_normalised() -> None:
    assert normalize("Torch_NPU") == "torch-npu"
    assert normalize("flash.attn") == "flash-attn"


def test_releases_ignore_suffixes() -> None:
    assert release("2.7.1.post2") == (2, 7, 1)
    assert release("2.8.0rc1") == (2, 8, 0)
    assert release("latest") is None


def test_continuations_hashes_markers_and_comments() -> None:
    text = (
        "# header\n"
        'torch==2.7.1 ; platform_machine == "aarch64" \\\n'
        "    --hash=sha256:abcd\n"
        "    # via -r requirements.in\n"
        "numpy>=1.26  # pinned below 2\n"
        "-r base.txt\n"
        "--extra-index-url=https://example.org/whl/cu121\n"
        "pkg @ https://example.org/pkg.whl ; python_version >= '3.10'\n"
    )
    entries = parse(split_lines(text))
    torch = next(e for e in entries if e.name == "torch")
    assert (torch.first, torch.last) == (1, 2)
    assert torch.pinned_version == "2.7.1"
    assert torch.marker == 'platform_machine == "aarch64"'
    assert torch.hashed
    assert torch.requirement == 'torch==2.7.1 ; platform_machine == "aarch64"'
    numpy = next(e for e in entries if e.name == "numpy")
    assert numpy.specifier == ">=1.26" and numpy.pinned_version is None
    options = [(e.option, e.value) for e in entries if e.option]
    assert options == [
        ("-r", "base.txt"),
        ("--extra-index-url", "https://example.org/whl/cu121"),
    ]
    url = next(e for e in entries if e.name == "pkg")
    assert url.url == "https://example.org/pkg.whl"
    assert url.marker == "python_version >= '3.10'"


def test_pins_must_be_exact() -> None:
    def pin(line: str) -> str | None:
        return parse([line])[0].pinned_version

    assert pin("torch==2.7.1") == "2.7.1"
    assert pin("torch === 2.7.1") == "2.7.1"
    assert pin("torch==2.7.*") is None
    assert pin("torch>=2.6,<2.9") is None
    assert pin("torch") is None
