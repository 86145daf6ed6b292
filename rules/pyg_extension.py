"""torch_scatter / torch_cluster / torch_sparse / torch_spline_conv imports and calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, fill, reported, under

# torch_geometric's own names whose work is done by torch_scatter's kernels when it is
# installed (PyG 1.x requires it; PyG >= 2.3 takes torch's scatter_reduce without it).
_PYG_SCATTER = (
    "torch_geometric.utils.softmax",
    "torch_geometric.utils.scatter",
    "torch_geometric.nn.MessagePassing",
    "torch_geometric.nn.conv.MessagePassing",
    "torch_geometric.nn.conv.message_passing.MessagePassing",
)


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

    Also reported, at the import only: `torch_geometric.utils.softmax` / `scatter` and
    `MessagePassing` (from `torch_geometric.nn` or `torch_geometric.nn.conv`), whose
    aggregation runs torch_scatter's scatter kernels when torch_scatter is installed (PyG
    1.x requires it; PyG >= 2.3 falls back to torch's `scatter_reduce` without it). Hand
    ports of such projects route torch_scatter's scatter max to `mx_driving.scatter_max`.

    Caveats: the rest of `torch_geometric` (pure Python) is not reported, nor are calls of
    the PyG names above (one warning per import says it for the whole file).
    """

    code = "NPU066"
    action = "replace-library"
    name = "pyg-extension"
    summary = "Report torch_scatter/torch_cluster/torch_sparse calls (mx_driving has some ops)."
    uses = ("torch_scatter", "torch_cluster", "torch_sparse", "torch_spline_conv")
    trigger = Trigger(tokens=(*uses, "torch_geometric"))
    modules = (*uses, *_PYG_SCATTER)
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
        **{
            name: (
                "route torch_scatter's scatter max/add to {extension_ops}.scatter_max / "
                "scatter_add (hand ports patch torch_scatter), or run PyG >= 2.3 without "
                "torch_scatter"
            )
            for name in _PYG_SCATTER
        },
    }
    examples = (
        reported("from torch_scatter import scatter_mean\nout = scatter_mean(x, index, dim=0)\n"),
        Example("import torch\nout = x.scatter_reduce(0, index, src, reduce='mean')\n"),
        reported("from torch_geometric.utils import softmax\n"),
        Example("from torch_geometric.data import Data\n"),
    )

    def import_message(self, name: str) -> str:
        if under(name, _PYG_SCATTER) is not None:
            return fill(
                "its aggregation runs torch_scatter's C++/CUDA kernels when torch_scatter is "
                "installed (PyG 1.x requires it); they have no {DEVICE} kernels",
                self.target,
            )
        return super().import_message(name)
