"""Serve a trained policy: inference only."""

# Added by the migration (entry-point-setup): the npu runtime and its safety net load
# before anything builds a device, an accelerator or a process group. Where they are
# missing the script warns and runs without them.
try:
    import torch_npu  # noqa: F401
    import torch_npu.contrib.transfer_to_npu  # noqa: F401
except (ImportError, RuntimeError, OSError) as error:
    import warnings
    warnings.warn(f"npu set-up incomplete, running without it: {error!r}", stacklevel=1)
# End of the migration's set-up.

import torch


def serve(path, device="cuda"):
    policy = torch.load(path).to(device).eval()
    return policy


if __name__ == "__main__":
    serve("policy.pt")
