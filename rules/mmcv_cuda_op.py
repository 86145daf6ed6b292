"""mmcv's compiled ops (`mmcv._ext`): loaded by name, wrapped, or replaced by their
pure-PyTorch fallbacks."""

from __future__ import annotations

import ast
from typing import ClassVar

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example, RuleContext
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, fill, reported

_LOAD_EXT = "mmcv.utils.ext_loader.load_ext"
_MSDA = "mmcv.ops.multi_scale_deform_attn"
# mmcv's pure-PyTorch reference implementations that code calls where the CUDA op is not
# available -> the mx_driving op that has an NPU kernel for the same computation.
_FALLBACKS = {
    f"{_MSDA}.multi_scale_deformable_attn_pytorch": "multi_scale_deformable_attn",
    "mmcv.ops.multi_scale_deformable_attn_pytorch": "multi_scale_deformable_attn",
}
# mmcv's autograd Functions around `_ext` kernels.
_FUNCTIONS = {
    f"{_MSDA}.MultiScaleDeformableAttnFunction": "multi_scale_deformable_attn",
    "mmcv.ops.MultiScaleDeformableAttnFunction": "multi_scale_deformable_attn",
}
# `_ext` kernel names (without `_forward` / `_backward`) -> the mx_driving op with an NPU
# kernel, each name checked in the `__all__` of the mx-driving 26.1.0.post2 and 26.2.0.post2
# wheels.
_EXT_OPS = {
    "ms_deform_attn": "multi_scale_deformable_attn",
    "modulated_deform_conv": "modulated_deform_conv2d",
    "deform_conv": "deform_conv2d",
    "roi_align_rotated": "roi_align_rotated",
    "border_align": "border_align",
    "box_iou_rotated": "box_iou_rotated",
    "box_iou_quadri": "box_iou_quadri",
    "knn": "knn",
    "three_nn": "three_nn",
    "three_interpolate": "three_interpolate",
    "furthest_point_sampling_with_dist": "furthest_point_sample_with_dist",
    "furthest_point_sampling": "furthest_point_sampling",
    "group_points": "group_points",
    "assign_score_withk": "assign_score_withk",
    "points_in_boxes_all": "points_in_boxes_all",
    "roiaware_pool3d": "roiaware_pool3d",
    "roipoint_pool3d": "roipoint_pool3d",
    "dynamic_point_to_voxel": "dynamic_scatter",
    "hard_voxelize": "voxelization",
    "iou3d_boxes_overlap_bev": "boxes_overlap_bev",
    "iou3d_nms3d_normal": "nms3d_normal",
    "iou3d_nms3d": "nms3d",
    "pixel_group": "pixel_group",
    "sigmoid_focal_loss": "sigmoid_focal_loss",
}


def _unused_loads(tree: ast.Module, text: str) -> frozenset[int]:
    """Lines of `name = ....load_ext(...)` whose `name` the file never reads an attribute
    of (a copied import block that loads the kernels and never calls them)."""
    read = {
        node.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }
    lines: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, (ast.Attribute, ast.Name))
            and (
                node.value.func.attr
                if isinstance(node.value.func, ast.Attribute)
                else node.value.func.id
            )
            == "load_ext"
            and all(isinstance(t, ast.Name) and t.id not in read for t in node.targets)
        ):
            lines.add(node.value.lineno)
    return frozenset(lines)


def _ext_op(kernel: str) -> str | None:
    """The mx_driving op for an `_ext` kernel name (`ms_deform_attn_forward`)."""
    base = kernel.removesuffix("_forward").removesuffix("_backward")
    return _EXT_OPS.get(base)


def _listed(node: cst.BaseExpression) -> list[str]:
    elements = node.elements if isinstance(node, (cst.List, cst.Tuple)) else ()
    found = [string_value(e.value) for e in elements]
    return [text for text in found if text is not None]


def _mx_names(ops: list[str]) -> str:
    return ", ".join(f"{{extension_ops}}.{op}" for op in dict.fromkeys(ops))


class MmcvCudaOp(UnsupportedConstruct):
    """Report mmcv's compiled ops: `ext_loader.load_ext("_ext", [...])`, mmcv's
    `MultiScaleDeformableAttnFunction`, and a CUDA-or-fallback branch around them.

    What it reports (by qualified name, aliases included):

    - each `mmcv.utils.ext_loader.load_ext(name, [kernels])` call whose module the file
      uses (`ext_module.ms_deform_attn_forward(...)`; a load whose name is never read is
      left alone), naming the kernels and,
      where mx_driving has an NPU op for them, that op (`ms_deform_attn_forward` ->
      `mx_driving.multi_scale_deformable_attn`, `roi_align_rotated_forward` ->
      `mx_driving.roi_align_rotated`, `hard_voxelize_forward` -> `mx_driving.voxelization`,
      and about twenty more);
    - calls through mmcv's `MultiScaleDeformableAttnFunction` (`.apply(...)`);
    - an `if` that chooses between a compiled op and mmcv's pure-PyTorch reference
      (`multi_scale_deformable_attn_pytorch`) in one of its branches (BEVFormer-style
      `if torch.cuda.is_available() and value.is_cuda: ...Function.apply(...) else:
      multi_scale_deformable_attn_pytorch(...)`), once, at the `if`; a call of the
      reference outside such an `if` is reported on its own.

    Why: mmcv's `_ext` kernels are C++/CUDA code built with mmcv(-full); a CUDA build has no
    NPU kernels, so the CUDA branch cannot run on an Ascend host, and the pure-PyTorch
    reference that the other branch takes is dozens of small ops (grid samples, stacks,
    matmuls) per call. mx_driving has fused NPU kernels for these ops, and its default
    patcher (`mx_driving.patcher.default_patcher_builder`) replaces several of mmcv's ops
    in place; code that wraps `_ext` itself, as this code does, is not patched and has to
    call the mx_driving op.

    Example: `output = MultiScaleDeformableAttnFunction.apply(value, shapes, level_start,
    locations, weights, im2col_step)` -> suggest `mx_driving.multi_scale_deformable_attn(
    value, shapes, level_start, locations, weights)` (no im2col_step; check the argument
    order against the mx_driving docs).

    Safety: reports only: the mx_driving ops take their own argument lists.

    Caveats: a project's own copy of an mmcv Function is found through its `load_ext`
    call and the reference fallback beside it, not by its class name; ops that mmcv
    computes without `_ext` are not reported.
    """

    code = "NPU079"
    action = "replace-library"
    name = "mmcv-cuda-op"
    summary = "Report mmcv's compiled CUDA ops (load_ext kernels, deformable attention)."
    trigger = Trigger(
        tokens=("ext_loader", "load_ext", "multi_scale_deform", "MultiScaleDeformableAttnFunction"),
        facts=_unused_loads,
        local=True,
    )
    uses = (_LOAD_EXT, *_FALLBACKS, *_FUNCTIONS)
    message = "mmcv's compiled ops are C++/CUDA kernels with no {DEVICE} kernels"
    suggestion = (
        "use the {extension_ops} op with an {DEVICE} kernel, or apply "
        "{extension_ops}'s patcher where it covers the op"
    )
    suggestions: ClassVar[dict[str, str]] = {
        name: "use {extension_ops}.multi_scale_deformable_attn(value, spatial_shapes, "
        "level_start_index, sampling_locations, attention_weights)"
        for name in (*_FALLBACKS, *_FUNCTIONS)
    }
    examples = (
        reported(
            "from mmcv.utils import ext_loader\n"
            "ext_module = ext_loader.load_ext('_ext', ['ms_deform_attn_forward'])\n"
            "out = ext_module.ms_deform_attn_forward(value, shapes, index, loc, weights)\n"
        ),
        reported(
            "import torch\n"
            "from mmcv.ops.multi_scale_deform_attn import multi_scale_deformable_attn_pytorch\n"
            "if value.is_cuda:\n"
            "    out = Function.apply(value, shapes, start, loc, w, step)\n"
            "else:\n"
            "    out = multi_scale_deformable_attn_pytorch(value, shapes, loc, w)\n"
        ),
        Example("from mmcv.cnn import xavier_init\nxavier_init(layer)\n"),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        # Fallback calls already reported at the `if` that chooses them.
        self._in_branch: set[int] = set()
        # The mx_driving ops of the `load_ext` call being reported, for its suggestion.
        self._ops: list[str] = []

    def _fallback_calls(self, node: cst.CSTNode) -> list[cst.Call]:
        return cst_walk.find_calls(node, self.qualname, _FALLBACKS)

    def visit_If(self, node: cst.If) -> None:
        if node.orelse is None or any(id(c) in self._in_branch for c in self._fallback_calls(node)):
            return
        calls = self._fallback_calls(node.orelse) or self._fallback_calls(node.body)
        if not calls:
            return
        self._in_branch.update(id(call) for call in self._fallback_calls(node))
        op = _FALLBACKS[self.qualname(calls[0].func) or ""]
        self.warn(
            node,
            fill(
                "this if chooses a compiled CUDA kernel or mmcv's pure-PyTorch reference: "
                "neither is an {DEVICE} kernel (the reference runs as many small ops)",
                self.target,
            ),
            fill(
                f"on the {{DEVICE}}, call {{extension_ops}}.{op}(value, spatial_shapes, "
                "level_start_index, sampling_locations, attention_weights) instead",
                self.target,
            ),
        )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if call is not None and id(call) in self._in_branch:
            return None
        if name == _LOAD_EXT:
            unused = self.ctx.facts if isinstance(self.ctx.facts, frozenset) else frozenset()
            if call is not None and self.ctx.span(call)[0] in unused:
                return None
            listed = find_arg(call, 1, "funcs") if call is not None else None
            kernels = _listed(listed.value) if listed is not None else []
            shown = ", ".join(kernels) if kernels else "its kernels"
            self._ops = [op for op in map(_ext_op, kernels) if op is not None]
            return fill(f"loads mmcv's compiled {shown}: no {{DEVICE}} kernels", self.target)
        self._ops = []
        if name in _FALLBACKS:
            return fill(
                "mmcv's pure-PyTorch reference of a compiled op: it runs on the {DEVICE} as "
                "many small ops",
                self.target,
            )
        return super().describe(name, call)

    def suggest(self, name: str) -> str:
        if name == _LOAD_EXT and self._ops:
            return fill(f"use {_mx_names(self._ops)} where the kernels are called", self.target)
        return super().suggest(name)
