# accelerate is not used here
CUDA_VISIBLE_DEVICES=0 python eval.py --num_processes 8
