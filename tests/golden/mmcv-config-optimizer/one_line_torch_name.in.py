optimizer = dict(type='torch.optim.AdamW', lr=1e-4, weight_decay=1e-2)  # AdamW
