"""Migrated by the first release of the tool: the runtime alone, guarded."""

# Added by the migration (entry-point-setup): the npu runtime loads before anything
# builds a device, an accelerator or a process group. Where it is missing the script
# warns and runs without it.
try:
    import torch_npu  # noqa: F401
except (ImportError, RuntimeError, OSError) as error:
    import warnings
    warnings.warn(f"npu set-up incomplete, running without it: {error!r}", stacklevel=1)
# End of the migration's set-up.

import torch


def main():
    loss = torch.ones(1, requires_grad=True).sum()
    loss.backward()


if __name__ == "__main__":
    main()
