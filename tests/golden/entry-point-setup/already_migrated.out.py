"""Set up by hand."""

import torch
import torch_npu  # noqa: F401


def main():
    torch.ones(1, requires_grad=True).sum().backward()


if __name__ == "__main__":
    main()
