#!/bin/bash
npu-smi info
NUM=$(npu-smi info -l | grep -c "NPU ID")
