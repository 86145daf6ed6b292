#!/bin/bash
srun --gres=gpu:1 -n 1 python probe.py
salloc -G 2 --time=01:00:00
JOB=$(sbatch --gpus=4 --parsable job.sh)
srun --ntasks-per-node=8 python train.py
