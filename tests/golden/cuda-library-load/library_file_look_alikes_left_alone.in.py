import glob
import os


def sources(root: str) -> list[str]:
    cuda_dir = os.path.join(root, "cuda", "kernels")
    notes = os.path.join(root, "libnccl_notes.txt")
    libs = glob.glob(os.path.join(root, "libfoo.so*"))
    return [cuda_dir, notes, *libs]


print("install libnccl.so from nvidia-nccl-cu12")
