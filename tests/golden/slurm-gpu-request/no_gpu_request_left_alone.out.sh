#!/bin/bash
#SBATCH --job-name=cpu_job
#SBATCH --cpus-per-task=128
# --gres=gpu:8 is set by the wrapper
export GPUS_PER_NODE=8
echo "requesting ${GPUS_PER_NODE} gpus"
