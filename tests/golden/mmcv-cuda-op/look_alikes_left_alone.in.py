import torch
from mmcv.cnn import xavier_init
from mmcv.ops import MultiScaleDeformableAttention


def load_ext(name, funcs):
    return (name, funcs)


ext_module = load_ext("_ext", ["ms_deform_attn_forward"])


def init(layer: torch.nn.Module) -> MultiScaleDeformableAttention:
    xavier_init(layer)
    if torch.cuda.is_available():
        return layer.cuda()
    return layer
