#!/bin/bash
#SBATCH -N 4
#SBATCH --gres=gpu:8

export GPUS_PER_NODE=8
export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)
export TOTAL_GPUS=$((GPUS_PER_NODE * SLURM_NNODES))

srun --jobid $SLURM_JOBID bash -c 'accelerate launch \
  --main_process_ip $MASTER_ADDR \
  --machine_rank $SLURM_PROCID \
  --num_machines $SLURM_NNODES \
  --num_processes ${TOTAL_GPUS} \
  training/train.py'
