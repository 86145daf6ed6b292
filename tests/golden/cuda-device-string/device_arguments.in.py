import torch


def load(path, rank):
    model = build().to("cuda")
    model = model.to(device="cuda:1", dtype=torch.float16)
    x = torch.zeros(3, device="cuda")
    here = torch.device("cuda", rank)
    there = torch.device(type="cuda")
    gen = torch.Generator("cuda")
    state = torch.load(path, "cuda")
    moved = torch.load(path, map_location={"cuda:1": "cuda:0"})
    pipe = Pipeline.from_pretrained(path, device_map="cuda")
    torch.cuda.set_device("cuda:0")
    batch = to_device(batch, "cuda")
    return model, x, here, there, gen, state, moved, pipe, batch
