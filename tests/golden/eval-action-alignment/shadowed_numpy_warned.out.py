def eval_action_model(model, batch, np):
    # `np` is a parameter: its array() is not known to build an array.
    pred = model.predict(batch)
    actions = np.array([b["action"] for b in batch])
    action_mask = np.array([b["action_mask"] for b in batch])
    err = (pred - actions) * action_mask
    return (err**2).sum()
