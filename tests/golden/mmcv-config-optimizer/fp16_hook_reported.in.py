optimizer = dict(type='AdamW', lr=4e-4, weight_decay=0.01)
optimizer_config = dict(type='Fp16OptimizerHook', loss_scale='dynamic', grad_clip=None)
