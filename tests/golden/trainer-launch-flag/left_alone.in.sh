echo "--tf32 True"
python train.py --tf32 False --bf16 True --optim adamw_torch_fused
python train.py --tf32 $TF32 --fp16 False --optim adamw_torch_fused
