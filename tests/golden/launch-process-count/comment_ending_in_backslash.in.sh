#!/bin/bash
# one node, e.g. bash scripts/train_one.sh \
accelerate launch --num_processes 8 training/train.py
