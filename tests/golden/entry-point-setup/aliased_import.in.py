import accelerate as acc
import torch.distributed as tdist


def main():
    tdist.init_process_group("nccl")
    return acc


if __name__ == "__main__":
    main()
