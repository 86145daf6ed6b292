optimizer = dict(type='AdamW', lr=2e-4, weight_decay=0.01)
fp16 = dict(loss_scale=512.)
