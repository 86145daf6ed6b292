import torch


def main():
    torch.ones(1, requires_grad=True).sum().backward()


if __name__ == "__main__":
    main()
