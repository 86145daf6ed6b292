import torch.nn.functional as F


def attend(q, k, v, natten=None):
    if natten is not None:
        return natten.functional.na2d(q, k, v, kernel_size=7)
    return F.scaled_dot_product_attention(q, k, v)
