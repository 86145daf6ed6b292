"""requirements-npu.txt, derived from the checkout's requirements.txt."""

from __future__ import annotations

import pytest

from target_dit4dit.requirements_npu import HEADER, MX_DRIVING, TORCH_NPU, derive

UPSTREAM_LIKE = """\
# comment
accelerate==1.12.0
decord==0.6.0
diffusers @ git+https://github.com/huggingface/diffusers.git@0123456789abcdef
nvidia-cublas-cu12==12.4.5.8
nvidia-nccl-cu12==2.21.5
numpy==1.26.4   # inline comment
torch==2.7.0
torchvision==0.22.0
triton==3.2.0
"""


def _lines(source: str) -> list[str]:
    text = derive(source)
    assert text.startswith(HEADER)
    return text[len(HEADER) :].strip().splitlines()


def test_npu_stack_pinned_together_and_cuda_wheels_left_out() -> None:
    assert _lines(UPSTREAM_LIKE) == [
        "accelerate==1.12.0",
        'decord==0.6.0; platform_machine != "aarch64"',
        "diffusers==0.38.0",
        "numpy==1.26.4",
        "torch==2.7.1",
        f"torch-npu=={TORCH_NPU}",
        f"mx-driving=={MX_DRIVING}",
        "torchvision==0.22.1",
    ]


def test_pins_are_mutually_consistent() -> None:
    assert TORCH_NPU.startswith("2.7.1.post"), "torch-npu 2.7.1.postN needs torch==2.7.1"
    assert MX_DRIVING.startswith("26."), "mx-driving 26.x needs torch>=2.6,<2.9"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("diffusers==0.36.0", "diffusers==0.36.0"),
        ("diffusers==0.38.0", "diffusers==0.38.0"),
        ("diffusers==0.39.0", "diffusers==0.38.0"),
        ("diffusers>=0.30", "diffusers==0.38.0"),
        ("diffusers", "diffusers==0.38.0"),
        ("Diffusers @ git+https://example.invalid/d.git", "diffusers==0.38.0"),
    ],
)
def test_diffusers_stays_at_or_below_0_38(line: str, expected: str) -> None:
    assert _lines(line + "\n")[-1] == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("eva-decord==0.6.1", 'eva-decord==0.6.1; platform_machine != "aarch64"'),
        (
            'decord==0.6.0 ; python_version < "3.12"',
            'decord==0.6.0; (python_version < "3.12") and platform_machine != "aarch64"',
        ),
        (
            'decord==0.6.0; platform_machine == "x86_64"',
            'decord==0.6.0; platform_machine == "x86_64"',
        ),
    ],
)
def test_decord_is_skipped_on_aarch64(line: str, expected: str) -> None:
    assert expected in _lines(line + "\n")


def test_pip_options_are_kept_and_torch_is_added_when_absent() -> None:
    lines = _lines("--extra-index-url https://example.invalid/simple\nnumpy\n")
    assert lines[:3] == ["torch==2.7.1", f"torch-npu=={TORCH_NPU}", f"mx-driving=={MX_DRIVING}"]
    assert lines[3:] == ["--extra-index-url https://example.invalid/simple", "numpy"]


def test_same_result_when_requirements_txt_was_already_migrated() -> None:
    """Another rule may rewrite requirements.txt first (comments, its own NPU pins)."""
    migrated = (
        "# CUDA wheels removed by a migration\n"
        "accelerate==1.12.0\n"
        "decord==0.6.0\n"
        "diffusers==0.38.0\n"
        "# nvidia-cublas-cu12==12.4.5.8\n"
        "numpy==1.26.4\n"
        "torch==2.7.1\n"
        "torch_npu==2.7.1.post2\n"
        "torchvision==0.22.1\n"
    )
    assert derive(migrated) == derive(UPSTREAM_LIKE)
