#!/bin/bash
#SBATCH --job-name=dit4dit_libero
#SBATCH -N 8                         # number of nodes
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:8                 # number of gpus per node

export NCCL_TIMEOUT=10000
export NCCL_SOCKET_TIMEOUT_MS=360000

export GPUS_PER_NODE=8
export MASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)
export MASTER_PORT=$((RANDOM % 101 + 20000))
export TOTAL_GPUS=$((GPUS_PER_NODE * SLURM_NNODES))

srun --jobid $SLURM_JOBID bash -c 'accelerate launch \
  --config_file DiT4DiT/config/deepseeds/deepspeed_zero2.yaml \
  --main_process_ip $MASTER_ADDR \
  --main_process_port $MASTER_PORT \
  --machine_rank $SLURM_PROCID \
  --num_machines $SLURM_NNODES \
  --num_processes ${TOTAL_GPUS} \
  DiT4DiT/training/train.py \
  --config_yaml ./DiT4DiT/config/libero/dit4dit_libero.yaml'
