"""`added_imports.added` makes what LibCST's AddImportsVisitor makes, without importing it."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys

import libcst as cst
import pytest

from migrator.contract.rule import ImportRequest
from migrator.engine.added_imports import added

FIRSTS = [
    "",
    '"""Doc."""\n',
    "__strict__ = True\n",
    '"doc" "more"\n',
    "# a comment\n",
    "from __future__ import annotations\n",
    "x = 1\n",
]
TOPS = [
    "import os\n",
    "import torch\n",
    "import torch as th\n",
    "import torch as tc\n",
    "import torch.amp\n",
    "from torch.amp import autocast\n",
    "from torch.amp import GradScaler as GS\n",
    "from torch.amp import GradScaler as Scaler\n",
    "from torch.amp import *\n",
    "from .local import x\n",
    "from . import y\n",
    "from torch.amp import (\n    autocast,\n    GradScaler,\n)\n",
    "from torch.amp import (autocast as ac,)\n",
    "import a, torch_npu\n",
    "import torch; import os\n",
    "from torch_npu.contrib import transfer_to_npu\n",
    "from mmcv.device.npu import NPUDataParallel  # note\n",
    "# between\n",
    "\n",
]
AFTERS = [
    "",
    "x = 1\n",
    "\nx = 1\n",
    "# note\nx = 1\n",
    "\n# note\nx = 1\n",
    "def f():\n    import torch.amp\n    return torch.amp\n",
    "if True:\n    from torch.amp import GradScaler\n",
]
REQUESTS = [
    ImportRequest("torch.amp", "GradScaler"),
    ImportRequest("torch.amp", "GradScaler", "Scaler"),
    ImportRequest("torch.amp", "autocast"),
    ImportRequest("torch.amp", "GradScaler", "GS"),
    ImportRequest("torch_npu"),
    ImportRequest("torch", None, "th"),
    ImportRequest("torch", None, "tc"),
    ImportRequest("torch"),
    ImportRequest("torch.amp"),
    ImportRequest("mmcv.device.npu", "NPUDataParallel"),
    ImportRequest("mmcv.device.npu", "NPUDistributedDataParallel"),
    ImportRequest("os"),
    ImportRequest("local", "x"),
    ImportRequest("torch", "amp", "amp2"),
]


def _by_visitor(module: cst.Module, requests: list[ImportRequest]) -> str:
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    context = CodemodContext()
    for request in dict.fromkeys(requests):
        AddImportsVisitor.add_needed_import(context, request.module, request.name, request.asname)
    return AddImportsVisitor(context).transform_module(module).code


def _cases(count: int, seed: int) -> list[tuple[str, list[ImportRequest]]]:
    chosen = random.Random(seed)
    cases = []
    for _ in range(count):
        text = chosen.choice(FIRSTS)
        text += "".join(chosen.sample(TOPS, chosen.randint(0, 4)))
        text += chosen.choice(AFTERS)
        requests = chosen.sample(REQUESTS, chosen.randint(1, 4))
        if chosen.random() < 0.2:
            requests.append(requests[0])  # a request made twice
        cases.append((text, requests))
    return cases


@pytest.mark.parametrize(("text", "requests"), _cases(300, 7))
def test_added_imports_are_the_visitors(text: str, requests: list[ImportRequest]) -> None:
    module = cst.parse_module(text)
    try:
        expected: str | type[Exception] = _by_visitor(module, requests)
    except TypeError:
        expected = TypeError
    if expected is TypeError:
        with pytest.raises(TypeError):
            added(module, requests)
        return
    made = added(module, requests)
    assert made is not None
    assert made.code == expected


def test_every_first_and_top_meets_a_request_and_an_after() -> None:
    """Each leading statement with each top import, the request and the statements after
    taken in turn (the visitor's run is slow: all of the product took minutes)."""
    pairs = list(itertools.product(FIRSTS, TOPS))
    for index, (first, top) in enumerate(pairs):
        request = REQUESTS[index % len(REQUESTS)]
        after = AFTERS[index % len(AFTERS)]
        module = cst.parse_module(first + top + after)
        made = added(module, [request])
        assert made is not None
        assert made.code == _by_visitor(module, [request]), (first, top, after, request)


@pytest.mark.parametrize(
    "request_",
    [
        ImportRequest("torch.amp", "GradScaler", remove=True),
        ImportRequest("__future__", "annotations"),
        ImportRequest(".local", "x"),
        ImportRequest("a-b"),
        ImportRequest("torch", "not a name"),
        ImportRequest("torch", None, "1st"),
    ],
)
def test_requests_it_is_not_written_for_are_left_to_the_visitor(request_: ImportRequest) -> None:
    module = cst.parse_module("import os\n")
    assert added(module, [ImportRequest("torch_npu"), request_]) is None


def test_adding_imports_never_imports_libcst_codemod() -> None:
    """A fresh interpreter adds an import and has loaded neither libcst.codemod nor
    libcst.matchers (0.17 s of start-up)."""
    program = [
        "import sys, libcst",
        "from migrator.contract.rule import ImportRequest",
        "from migrator.engine.added_imports import added",
        "m = added(libcst.parse_module('import os\\nx = 1\\n'), [ImportRequest('torch_npu')])",
        "assert m.code == 'import os\\nimport torch_npu\\n\\nx = 1\\n', m.code",
        "print([n for n in sys.modules if n.startswith(('libcst.codemod', 'libcst.matchers'))])",
    ]
    run = subprocess.run([sys.executable, "-c", "\n".join(program)], capture_output=True, text=True)
    assert (run.returncode, run.stdout.strip()) == (0, "[]"), run.stderr
