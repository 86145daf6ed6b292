"""A warning must not be about a line the tool itself has just made right."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import invoke

# nanoGPT's configure_optimizers: NPU010 makes `use_fused` true on the NPU, so the kwargs
# carry fused=True and NPU004 has nothing to warn about.
NANOGPT = """import inspect

import torch


def configure_optimizers(optim_groups, learning_rate, betas, device_type):
    fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
    use_fused = fused_available and device_type == "cuda"
    extra_args = dict(fused=True) if use_fused else dict()
    return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)
"""


def test_fused_kwargs_that_the_device_edit_turns_on_are_not_warned(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(NANOGPT)
    result = invoke(str(tmp_path / "model.py"), "--dry-run")
    assert "NPU010" in result.output, result.output
    assert "NPU004" not in result.output, result.output


def test_kwargs_the_file_does_not_build_are_still_warned(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(
        "import torch\n\n\ndef build(params, **kwargs):\n"
        "    return torch.optim.AdamW(params, lr=1e-3, **kwargs)\n"
    )
    result = invoke(str(tmp_path / "model.py"), "--dry-run")
    assert "NPU004 warning: AdamW(**kwargs)" in result.output, result.output
