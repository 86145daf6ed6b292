#!/bin/bash
export CUDA_VISIBLE_DEVICES=0  # migrate: ignore[NPU100]
export ASCEND_LAUNCH_BLOCKING=1
