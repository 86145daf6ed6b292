"""CUDA graph capture."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class CudaGraph(UnsupportedConstruct):
    """Report CUDA graph capture: `torch.cuda.CUDAGraph`, `torch.cuda.graph`,
    `torch.cuda.make_graphed_callables` and `torch.cuda.graph_pool_handle`.

    What it reports: each call of those (including `with torch.cuda.graph(g):`), matched by
    qualified name (`torch.cuda.graphs.*` too). Replaying a graph (`g.replay()`) is a method
    call on the object and is not reported again.

    Why: CUDA graphs capture CUDA kernel launches on a CUDA stream; on an Ascend host they
    are not available. torch-npu has its own capture API in recent releases:
    `torch.npu.NPUGraph`, `torch.npu.graph(...)` and `torch.npu.make_graphed_callables`
    (aclgraph, from `torch_npu.npu.graphs`), with its own constraints (static shapes, no
    host synchronisation inside the capture, only some operators capturable).

    Example: `g = torch.cuda.CUDAGraph()` and `with torch.cuda.graph(g):` give two warnings.

    Safety: reports only, never rewrites: whether a captured region is capturable on the
    NPU has to be tried on the host.

    Caveats: `torch.compile(mode="reduce-overhead")`, which uses CUDA graphs internally, is
    reported by NPU060 (torch-compile-backend) only when its backend is the default one.
    """

    code = "NPU059"
    action = "port-code"
    name = "cuda-graph"
    summary = "Report CUDA graph capture (CUDAGraph, torch.cuda.graph, make_graphed_callables)."
    trigger = Trigger(
        tokens=("CUDAGraph", "cuda.graph", ".graph(", "make_graphed_callables", "graph_pool_handle")
    )
    uses = (
        "torch.cuda.CUDAGraph",
        "torch.cuda.graph",
        "torch.cuda.graphs",
        "torch.cuda.make_graphed_callables",
        "torch.cuda.graph_pool_handle",
    )
    message = "CUDA graph capture needs CUDA streams"
    suggestion = "capture with {graph_capture} and check it on the host, or run eagerly"
    examples = (
        reported(
            "import torch\ng = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    y = f(x)\n"
        ),
        reported("from torch.cuda import make_graphed_callables as mgc\nf = mgc(f, (x,))\n"),
        Example("import networkx as nx\ng = nx.graph(edges)\n"),
        Example('print("cuda graphs disabled")\n'),
    )
