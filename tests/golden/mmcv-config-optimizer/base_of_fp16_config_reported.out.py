optimizer = dict(type='AdamW', lr=1e-4, weight_decay=0.01)
lr_config = dict(policy='CosineAnnealing', min_lr_ratio=1e-3)
