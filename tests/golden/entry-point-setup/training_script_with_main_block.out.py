#!/usr/bin/env python
"""Train the policy with accelerate."""

from __future__ import annotations

# Added by the migration (entry-point-setup): the npu runtime and its safety net load
# before anything builds a device, an accelerator or a process group; where they
# cannot, the script stops here and says what to do. The mx_driving patcher is
# optional: without mx_driving the script runs unpatched.
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
try:
    from mx_driving.patcher import default_patcher_builder
except ModuleNotFoundError as error:
    if error.name != "mx_driving":
        raise
    default_patcher_builder = None
# End of the migration's set-up.

import argparse

from accelerate import Accelerator

# Built at import time, before the main block runs.
accelerator = Accelerator()


def main(args):
    model, optimizer, loader = accelerator.prepare(*build(args))
    for batch in loader:
        loss = model(batch)
        accelerator.backward(loss)
        optimizer.step()


if __name__ == "__main__":
    # Added by the migration (entry-point-setup): apply the mx_driving patches first, as
    # entering `with default_patcher_builder.build():` does (its exit undoes nothing).
    if default_patcher_builder is not None:
        default_patcher_builder.build().__enter__()
    parser = argparse.ArgumentParser()
    main(parser.parse_args())
