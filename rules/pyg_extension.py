"""torch_scatter / torch_cluster / torch_sparse / torch_spline_conv imports and calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from migrator.contract.rule import Example
from migrator.contract.unsupported import UnsupportedConstruct, reported


class PygExtension(UnsupportedConstruct):
    """Report PyTorch Geometric's compiled extension packages: `torch_scatter`,
    `torch_cluster`, `torch_sparse` and `torch_spline_conv`, each import and call.

    What it reports: `from torch_scatter import scatter_mean`, `import torch_cluster`,
    and calls such as `scatter_mean(src, index, dim=0)`, `torch_cluster.knn(x, y, k)`,
    `torch_cluster.fps(pos, batch, ratio)`, `SparseTensor(...)`, by qualified name.
    Optional imports are not reported; calls through the names they bind are.

    Why: these packages are C++/CUDA extensions whose wheels are built for CPU and CUDA
    only; on an Ascend host they either do not install or run their kernels on the CPU.
    mx_driving (Ascend's driving SDK) has NPU kernels for several of them, verified in the
    mx-driving 26.2 wheel:

    - `torch_scatter.scatter_add` / `scatter_mean` / `scatter_max` ->
      `mx_driving.scatter_add(src, index, out=None, dim=0, dim_size=None)` /
      `mx_driving.scatter_mean(...)` (same order) / `mx_driving.scatter_max(updates,
      indices, out=None)`: the positional order after `index` differs from torch_scatter's
      (`dim` comes after `out`), so pass `dim=` by keyword; torch's own
      `Tensor.scatter_reduce_` also runs on the NPU;
    - `torch_cluster.knn` / `radius` -> `mx_driving.knn` / `mx_driving.radius`, and
      `torch_cluster.fps` -> `mx_driving.furthest_point_sampling(points, num_points)` (a
      count, not a ratio; no batch vector); check argument and output layouts;
    - `torch_sparse` -> torch's own sparse tensors (`torch.sparse_coo_tensor`,
      `torch.sparse.mm`), checked on the host.

    Example: `from torch_scatter import scatter_mean` and `scatter_mean(x, idx, dim=0)`
    give two warnings suggesting `mx_driving.scatter_mean`.

    Safety: reports only: the argument orders and output layouts differ.

    Caveats: `torch_geometric` itself (pure Python) is not reported; its layers call these
    packages when they are installed and fall back to torch otherwise.
    """

    code = "NPU066"
    action = "replace-library"
    name = "pyg-extension"
    summary = "Report torch_scatter/torch_cluster/torch_sparse calls (mx_driving has some ops)."
    tokens = ("torch_scatter", "torch_cluster", "torch_sparse", "torch_spline_conv")
    modules = ("torch_scatter", "torch_cluster", "torch_sparse", "torch_spline_conv")
    uses = modules
    message = "PyG's extension packages are C++/CUDA builds with no {DEVICE} kernels"
    suggestion = "use torch's own ops (Tensor.scatter_reduce_, torch.sparse), checked on the host"
    suggestions: ClassVar[Mapping[str, str]] = {
        "torch_scatter": (
            "use {extension_ops}.scatter_add / scatter_mean / scatter_max (pass dim= by "
            "keyword: the order after index differs), or Tensor.scatter_reduce_"
        ),
        "torch_cluster.knn": "use {extension_ops}.knn; check its argument and output layout",
        "torch_cluster.radius": "use {extension_ops}.radius; check its argument and output layout",
        "torch_cluster.fps": (
            "use {extension_ops}.furthest_point_sampling(points, num_points): a count, "
            "not a ratio, and no batch vector"
        ),
        "torch_sparse": "use torch's sparse tensors (torch.sparse_coo_tensor, torch.sparse.mm)",
    }
    examples = (
        reported("from torch_scatter import scatter_mean\nout = scatter_mean(x, index, dim=0)\n"),
        Example("import torch\nout = x.scatter_reduce(0, index, src, reduce='mean')\n"),
    )
