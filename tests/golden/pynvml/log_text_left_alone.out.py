import subprocess


def info():
    print("run nvidia-smi to see memory; pynvml is not used")
    return subprocess.run(["ls", "-l"], check=True)
