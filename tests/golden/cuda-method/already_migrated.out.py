def prepare(model, batch):
    return model.npu(), batch.npu(non_blocking=True)
