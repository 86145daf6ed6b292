"""spconv (sparse convolution) imports and calls."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Spconv(UnsupportedConstruct):
    """Report spconv: imports of `spconv` (`spconv.pytorch`) and every call into it.

    What it reports: `import spconv.pytorch as spconv`, `from spconv.pytorch import
    SubMConv3d`, and calls such as `spconv.SparseConvTensor(features, indices, shape, bs)`,
    `spconv.SubMConv3d(16, 32, 3, indice_key="subm1")`, `spconv.SparseSequential(...)`, by
    qualified name. Optional imports are not reported; calls through the names they bind are.

    Why: spconv's sparse convolutions are CUDA kernels (cumm), published as per-CUDA-version
    wheels (`spconv-cu120`, ...); there is no Ascend build. mx_driving (Ascend's driving
    SDK) has NPU counterparts with the same names, verified in the mx-driving 26.2 wheel:
    `mx_driving.SparseConvTensor`, `SparseConv3d`, `SubMConv3d`, `SparseInverseConv3d`,
    `SparseSequential`, `SparseModule`.

    Example: `import spconv.pytorch as spconv` and `spconv.SubMConv3d(16, 32, 3)` give two
    warnings suggesting `mx_driving.SubMConv3d`.

    Safety: reports only: check the constructor arguments (`indice_key`, `algo`) and the
    layout of weights loaded from a spconv checkpoint against mx_driving's modules.

    Caveats: spconv 1.x's `spconv.SparseConv3d` (without `.pytorch`) is reported the same.
    """

    code = "NPU067"
    action = "replace-library"
    name = "spconv"
    summary = "Report spconv sparse convolutions (mx_driving has SparseConv3d/SubMConv3d...)."
    trigger = Trigger(tokens=("spconv",))
    modules = ("spconv",)
    uses = ("spconv",)
    message = "spconv's sparse convolutions are CUDA kernels with no {DEVICE} build"
    suggestion = (
        "use {extension_ops}'s SparseConvTensor / SparseConv3d / SubMConv3d / "
        "SparseInverseConv3d / SparseSequential; check constructor arguments and weight layout"
    )
    examples = (
        reported("import spconv.pytorch as spconv\nconv = spconv.SubMConv3d(16, 32, 3)\n"),
        Example("import torch\nconv = torch.nn.Conv3d(16, 32, 3)\n"),
    )
