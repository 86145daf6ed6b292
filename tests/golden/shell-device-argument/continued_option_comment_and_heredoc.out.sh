#!/bin/bash
python train.py --seed 1 --device \
    npu:1  # was: --device cuda
cat > notes.txt <<EOF
run with --device cuda on a GPU host
EOF
