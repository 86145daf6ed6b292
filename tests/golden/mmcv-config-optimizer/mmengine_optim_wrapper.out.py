optim_wrapper = dict(
    type='OptimWrapper',
    optimizer=dict(type='AdamW', lr=2e-4, weight_decay=0.01, fused=True),
    clip_grad=dict(max_norm=35, norm_type=2))
