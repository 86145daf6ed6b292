#!/bin/bash
export NCCL_DEBUG=INFO
export NCCL_IB_DISABLE=1 NCCL_P2P_LEVEL=NVL
export CUDA_DEVICE_ORDER=PCI_BUS_ID
export CUDA_HOME=/usr/local/cuda
unset NCCL_DEBUG
echo "debug level: $NCCL_DEBUG"
