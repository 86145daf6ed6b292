#!/bin/bash
# python train.py --device cuda
export CUDA_VISIBLE_DEVICES=0,1
python train.py --name cuda --device auto --backend cuda --device "$DEVICE"
