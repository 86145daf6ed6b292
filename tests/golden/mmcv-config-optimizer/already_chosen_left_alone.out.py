optimizer = dict(type='AdamW', lr=2e-4, fused=False)
other = dict(type='AdamW', lr=2e-4)
