# Added by the migration (entry-point-setup): the npu runtime loads before anything
# builds a device, an accelerator or a process group; where it cannot, the script
# stops here and says what to do.
try:
    import torch_npu  # noqa: F401
except (ImportError, RuntimeError, OSError) as error:
    raise ImportError(
        "torch_npu did not load: source CANN's set_env.sh first "
        "(/usr/local/Ascend/ascend-toolkit/set_env.sh, or "
        "~/Ascend/ascend-toolkit/set_env.sh for a per-user install), and install "
        "the torch-npu release that matches the installed torch (this migration "
        "targeted torch-npu 2.7.1.post11, for torch 2.7.1)"
    ) from error
# End of the migration's set-up.

import torch


def main():
    torch.ones(1, requires_grad=True).sum().backward()


if __name__ == "__main__":
    main()
