import torch


def render(model, batch):
    with torch.autocast("npu", dtype=torch.bfloat16):
        frames = model.decode(batch)
        logits = model.classify(batch)
    video = (frames.clamp(0, 1) * 255).to(torch.uint8).cpu().numpy()
    probs = logits.softmax(-1).to("cpu", dtype=torch.float32).numpy()
    scores = logits.to(dtype=torch.float64).cpu().numpy()
    labels = logits.long().cpu().numpy()
    mask = logits.bool().cpu().numpy()
    raw = frames.byte().cpu().numpy()
    typed = frames.type(torch.int32).cpu().numpy()
    already = frames.float().detach().cpu().numpy()
    half = frames.half().cpu().numpy()
    return video, probs, scores, labels, mask, raw, typed, already, half
