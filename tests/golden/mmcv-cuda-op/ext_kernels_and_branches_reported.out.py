import torch
from mmcv.ops.multi_scale_deform_attn import (
    MultiScaleDeformableAttnFunction,
    multi_scale_deformable_attn_pytorch,
)
from mmcv.utils import ext_loader

from .functions import DeformableAttnFp32

ext_module = ext_loader.load_ext("_ext", ["ms_deform_attn_backward", "ms_deform_attn_forward"])
voxel_ext = ext_loader.load_ext("_ext", ["hard_voxelize_forward", "my_custom_forward"])


class SpatialAttention(torch.nn.Module):
    def forward(self, value, shapes, start, locations, weights):
        if torch.cuda.is_available() and value.is_cuda:
            if value.dtype == torch.float16:
                function = DeformableAttnFp32
            else:
                function = DeformableAttnFp32
            output = function.apply(value, shapes, start, locations, weights, self.im2col_step)
        else:
            output = multi_scale_deformable_attn_pytorch(value, shapes, locations, weights)
        return output


def mmcv_function(value, shapes, start, locations, weights):
    return MultiScaleDeformableAttnFunction.apply(value, shapes, start, locations, weights, 64)


def kernel(value, shapes, start, locations, weights):
    return ext_module.ms_deform_attn_forward(value, shapes, start, locations, weights, 64)


def reference(value, shapes, locations, weights):
    return multi_scale_deformable_attn_pytorch(value, shapes, locations, weights)


def voxels(points):
    return voxel_ext.hard_voxelize_forward(points)
