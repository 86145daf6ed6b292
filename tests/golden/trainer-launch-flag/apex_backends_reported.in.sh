python train.py --fp16 True --fp16_backend apex
python train.py --half_precision_backend=apex --optim adamw_apex_fused
