#!/bin/bash
export CUDA_VISIBLE_DEVICES=0  # migrate: ignore[NPU100]
export CUDA_LAUNCH_BLOCKING=1
