import subprocess

TOOLS = ["nvcc", "nvidia-smi"]


def show():
    print(["echo", "nvidia-smi"])
    subprocess.run(["echo", "nvidia-smi"], check=True)
    return TOOLS
