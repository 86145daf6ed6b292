import torch


def load(path, rank):
    model = build().to("npu")
    model = model.to(device="npu:1", dtype=torch.float16)
    x = torch.zeros(3, device="npu")
    here = torch.device("npu", rank)
    there = torch.device(type="npu")
    gen = torch.Generator("npu")
    state = torch.load(path, "npu")
    moved = torch.load(path, map_location={"cuda:1": "npu:0"})
    pipe = Pipeline.from_pretrained(path, device_map="npu")
    torch.cuda.set_device("npu:0")
    batch = to_device(batch, "npu")
    return model, x, here, there, gen, state, moved, pipe, batch
