import os
import subprocess


def visible_gpus():
    cmd = ["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"]
    if os.getenv("GPU_IDS") is not None:
        cmd += ["--id=" + os.environ["GPU_IDS"]]
    result = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return result.stdout.split()


def listed():
    return subprocess.check_output(("nvidia-smi", "-L"))
