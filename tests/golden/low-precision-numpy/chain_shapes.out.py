import torch


def export(model, x):
    with torch.autocast("npu", dtype=torch.bfloat16):
        y = model(x)
        inline = model.head(y).float().cpu().numpy()
    detached = y.detach().float().numpy()
    moved_first = y.float().cpu().detach().numpy()
    multi_line = (
        y
        .detach().float()
        .cpu()
        .numpy()
    )
    viewed = y.squeeze(0).detach().float().cpu().numpy(force=True)
    return inline, detached, moved_first, multi_line, viewed
