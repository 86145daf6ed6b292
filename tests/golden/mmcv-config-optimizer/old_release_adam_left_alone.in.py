optimizer = dict(type='Adam', lr=1e-3)
