import torch
from torch import randint


def decode(model, tokenizer, inputs, labels, table):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        generated = model.generate(**inputs)
        logits = model(**inputs).logits
        best = logits.argmax(-1)
        worst = torch.argmin(logits, dim=-1)
        top = logits.topk(5).indices
        second = torch.topk(logits, 5)[1]
        values, order = logits.sort(dim=-1)
        as_long = logits.long()
        hits = logits > 0
        chosen = torch.where(hits, 1, 0)
        where_ids = torch.nonzero(hits)
        ranked = torch.sort(logits).indices
        noise = randint(0, 10, (4,))
        probs = logits.softmax(-1)
    tokens = table[generated.cpu().numpy()]
    a = table[best.cpu().numpy()]
    b = table[worst.detach().cpu().numpy()]
    c = table[top.cpu().numpy()]
    d = table[second.cpu().numpy()]
    e = table[order.cpu().numpy()]
    f = table[as_long.cpu().numpy()]
    g = hits.cpu().numpy()
    h = table[chosen.cpu().numpy()]
    i = where_ids.cpu().numpy()
    j = table[ranked.cpu().numpy()]
    k = noise.cpu().numpy()
    p = probs.float().cpu().numpy()
    v = values.float().cpu().numpy()
    return tokens, a, b, c, d, e, f, g, h, i, j, k, p, v


def pairs(model, x):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        scores = model(x)
        top_values, top_ids = scores.max(dim=1)
        peak = scores.max()
        out = model.generate(x, output_scores=True, return_dict_in_generate=True)
    return (
        top_ids.cpu().numpy(),
        top_values.float().cpu().numpy(),
        peak.float().cpu().numpy(),
        out.sequences.cpu().numpy(),
        out.scores[0].cpu().numpy(),
    )
