#!/bin/bash
# Common in launch scripts, but NCCL documents neither: no HCCL value is guessed.
export NCCL_TIMEOUT=10000
export NCCL_SOCKET_TIMEOUT_MS=360000
# Documented by NCCL, with an HCCL counterpart.
export HCCL_SOCKET_FAMILY=AF_INET6
# Documented by NCCL, no HCCL counterpart.
export NCCL_IB_DISABLE=1
NCCL_DEBUG=INFO python train.py
