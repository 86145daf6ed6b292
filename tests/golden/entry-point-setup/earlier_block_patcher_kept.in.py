#!/usr/bin/env python
"""Train the policy with accelerate."""

from __future__ import annotations

# Added by the migration (entry-point-setup): the npu runtime, its safety net and the
# mx_driving patcher load before anything builds a device, an accelerator or a process
# group. Where they are missing the script warns and runs without them.
try:
    import torch_npu  # noqa: F401
    import torch_npu.contrib.transfer_to_npu  # noqa: F401
    from mx_driving.patcher import default_patcher_builder
except (ImportError, RuntimeError, OSError) as error:
    import warnings
    default_patcher_builder = None
    warnings.warn(f"npu set-up incomplete, running without it: {error!r}", stacklevel=1)
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
