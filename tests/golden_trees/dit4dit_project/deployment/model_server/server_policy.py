"""Serve a trained policy over websockets (fixture)."""

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

import torch

from DiT4DiT.model.framework import build_framework


def main(args):
    vla = build_framework(torch.load(args.ckpt_path, map_location="cpu"))
    vla = vla.to("npu").eval()
    return vla


if __name__ == "__main__":
    # Added by the migration (entry-point-setup): apply the mx_driving patches first, as
    # entering `with default_patcher_builder.build():` does (its exit undoes nothing).
    if default_patcher_builder is not None:
        default_patcher_builder.build().__enter__()
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt_path", type=str, required=True)
    parser.add_argument("--port", type=int, default=5694)
    main(parser.parse_args())
