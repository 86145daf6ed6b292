# Upstream switched launchers.
torchrun --nproc_per_node 8 training/train.py
