"""Serve a trained policy over websockets (fixture)."""

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
