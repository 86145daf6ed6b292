#!/bin/bash
# What is not rewritten: quoted text the shell does not expand here, and strings run later.
echo 'export CUDA_VISIBLE_DEVICES=0 first'
echo "CUDA_VISIBLE_DEVICES=$ASCEND_RT_VISIBLE_DEVICES"
echo CUDA_VISIBLE_DEVICES is set
eval "export CUDA_VISIBLE_DEVICES=$GPU"
bash -c 'CUDA_VISIBLE_DEVICES=3 python job.py'
ssh node1 "CUDA_VISIBLE_DEVICES=0 python job.py"
srun --export=ALL,CUDA_VISIBLE_DEVICES=0 python job.py
printenv CUDA_VISIBLE_DEVICES
python -c 'import os; print(os.environ["CUDA_VISIBLE_DEVICES"])'
echo "multi-line
CUDA_VISIBLE_DEVICES=$ASCEND_RT_VISIBLE_DEVICES
done"
