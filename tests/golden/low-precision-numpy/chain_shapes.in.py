import torch


def export(model, x):
    with torch.autocast("npu", dtype=torch.bfloat16):
        y = model(x)
        inline = model.head(y).cpu().numpy()
    detached = y.detach().numpy()
    moved_first = y.cpu().detach().numpy()
    multi_line = (
        y
        .detach()
        .cpu()
        .numpy()
    )
    viewed = y.squeeze(0).detach().cpu().numpy(force=True)
    return inline, detached, moved_first, multi_line, viewed
