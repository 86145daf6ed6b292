#!/bin/bash
nvidia-smi
NUM_GPUS=$(nvidia-smi -L | wc -l)
watch -n 1 nvidia-smi --query-gpu=memory.used --format=csv
/usr/bin/nvidia-smi topo -m
