# Copyright 2026 Example authors.
# Licensed under the Apache License, Version 2.0.

# Added by the migration (entry-point-setup): the npu runtime and its safety net load
# before anything builds a device, an accelerator or a process group; where they
# cannot, the script stops here and says what to do.
try:
    import torch_npu  # noqa: F401
    import torch_npu.contrib.transfer_to_npu  # noqa: F401
except (ImportError, RuntimeError, OSError) as error:
    raise ImportError(
        "torch_npu did not load: source CANN's set_env.sh first "
        "(/usr/local/Ascend/ascend-toolkit/set_env.sh, or "
        "~/Ascend/ascend-toolkit/set_env.sh for a per-user install), and install "
        "the torch-npu release that matches the installed torch (this migration "
        "targeted torch-npu 2.7.1.post11, for torch 2.7.1)"
    ) from error
# End of the migration's set-up.

# Third-party libraries
import torch


def train(model, loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        model(batch).mean().backward()
        optimizer.step()


if __name__ == "__main__": train(*setup())  # one line
