#!/bin/bash
cat > scripts/inner.sh <<EOF
accelerate launch --num_processes 8 training/train.py
EOF
bash scripts/inner.sh
