import os
import subprocess


def launch(cmd, gpu):
    env = os.environ.copy()
    env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    subprocess.run(cmd, env=env, check=True)
    subprocess.run(cmd, env={**os.environ, "CUDA_VISIBLE_DEVICES": "1"}, check=True)
    subprocess.run(cmd, env=dict(os.environ, CUDA_VISIBLE_DEVICES="2"), check=True)
