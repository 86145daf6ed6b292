"""How a run grows with its input: generated projects of one shape, at a size and twice it.

    python -m benchmarks.growth                            # every shape
    python -m benchmarks.growth --shape notebook_cells --size 4000

Each shape is a project this script writes: many functions, one long function, a class
of many methods, a table, an `elif` chain, suppressions, many files, a notebook of many
cells, a JSON annotations file with device keys, a YAML config, a shell script, a README
of many code blocks. For each, it times `migrate --dry-run --no-cache --jobs 1` over the
project at `--size` and at twice that (CPU seconds, user + system, of a fresh process,
the best of `--runs`), and prints both and their ratio, the growth. A cost in proportion
to the input grows about 2x when the input doubles (start-up pulls it below), a cost in its
square about 4x; a growth over 3 is marked. Two such costs were found so, and fixed: NPU120
placed each string of a JSON file by counting the lines before it (a 5.5 MB file took 3
minutes), and each cell of a notebook read every name the cells before it bound.

Nothing is asserted: the figures are ratios within one run, as in `bench.py`. An `elif`
chain of about 600 links is past what LibCST's recursion allows (the run reports it as
too deeply nested), so that shape's default size stays under it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks import bench

# A shape: (default size, the files of a project of that size).
Files = dict[str, str]


def _functions(n: int) -> Files:
    body = "".join(
        f"def f{i}(x):\n    y = x.cuda()\n    torch.cuda.synchronize()\n    return y\n\n\n"
        for i in range(n)
    )
    return {"model.py": f"import torch\n\n\n{body}"}


def _one_function(n: int) -> Files:
    body = "".join(f"    y{i} = x.cuda()\n    torch.cuda.synchronize()\n" for i in range(n))
    return {"model.py": f"import torch\n\n\ndef f(x):\n{body}    return x\n"}


def _class_methods(n: int) -> Files:
    body = "".join(f"    def m{i}(self, x):\n        return x.cuda()\n\n" for i in range(n))
    return {"model.py": f"import torch\n\n\nclass Model:\n{body}"}


def _table(n: int) -> Files:
    rows = "".join(f"    'k{i}': ('cuda', {i}),\n" for i in range(n))
    return {"table.py": f"import torch\nx = torch.zeros(1).cuda()\nTABLE = {{\n{rows}}}\n"}


def _elif_chain(n: int) -> Files:
    links = "".join(
        f"    elif torch.cuda.device_count() > {i}:\n        x = torch.device('cuda')\n"
        for i in range(1, n)
    )
    return {
        "pick.py": "import torch\n\n\ndef pick(x):\n    if torch.cuda.device_count() > 0:\n"
        f"        x = 0\n{links}    return x\n"
    }


def _suppressions(n: int) -> Files:
    lines = "".join(f"x{i} = torch.zeros(1).cuda()  # migrate: ignore[NPU011]\n" for i in range(n))
    return {"quiet.py": f"import torch\n{lines}y = torch.zeros(1).cuda()\n"}


def _files(n: int) -> Files:
    return {
        f"pkg/m{i}.py": f"import torch\n\n\ndef f{i}(x):\n    return x.cuda()\n" for i in range(n)
    }


def _notebook_cells(n: int) -> Files:
    cells: list[dict[str, object]] = [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": [
                *(["import torch\n"] if i == 0 else []),
                f"y{i} = torch.zeros(1).cuda()\n",
                "torch.cuda.synchronize()",
            ],
        }
        for i in range(n)
    ]
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return {"explore.ipynb": json.dumps(notebook, indent=1)}


def _json_records(n: int) -> Files:
    records = [{"file": f"img_{i}.jpg", "caption": "a cat", "id": str(i)} for i in range(n)]
    for at in range(0, n, 1000):
        records[at]["map_location"] = "cuda:0"
    return {"data/annotations.json": json.dumps({"device": "cuda", "images": records}, indent=1)}


def _yaml_records(n: int) -> Files:
    items = "".join(f"  - name: img_{i}.jpg\n    caption: a cat\n" for i in range(n))
    return {"configs/data.yaml": f"device: cuda\nitems:\n{items}"}


def _shell_lines(n: int) -> Files:
    lines = "".join(
        f"CUDA_VISIBLE_DEVICES={i % 8} python train.py --device cuda --seed {i}\n" for i in range(n)
    )
    return {"run.sh": f"#!/bin/bash\n{lines}", "train.py": "import torch\n"}


def _readme_blocks(n: int) -> Files:
    blocks = "".join(
        f"```bash\nCUDA_VISIBLE_DEVICES=0 python train.py --seed {i}\n```\n\n" for i in range(n)
    )
    train = "import torch\n\nx = torch.zeros(1).cuda()\n"
    return {"README.md": f"# Project\n\n{blocks}", "train.py": train}


SHAPES: dict[str, tuple[int, Callable[[int], Files]]] = {
    "functions": (2000, _functions),
    "one_function": (2000, _one_function),
    "class_methods": (2000, _class_methods),
    "table": (4000, _table),
    "elif_chain": (250, _elif_chain),
    "suppressions": (2000, _suppressions),
    "files": (500, _files),
    "notebook_cells": (1000, _notebook_cells),
    "json_records": (30000, _json_records),
    "yaml_records": (2000, _yaml_records),
    "shell_lines": (2000, _shell_lines),
    "readme_blocks": (2000, _readme_blocks),
}

# A growth past this, for an input twice as large, is marked: a cost in its square.
SQUARE = 3.0


def write(root: Path, files: Files) -> int:
    """Write a project; its size in bytes."""
    size = 0
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        size += len(text.encode("utf-8"))
    return size


@dataclass(frozen=True)
class Growth:
    """One shape's figures: its size, the projects' bytes, the CPU seconds and exit codes
    of the runs at the size and at twice it, and the ratio of the two runs' seconds."""

    shape: str
    size: int
    bytes: int
    bytes_double: int
    cpu_s: float
    cpu_s_double: float
    exit: int
    exit_double: int

    @property
    def growth(self) -> float:
        return round(self.cpu_s_double / self.cpu_s, 2) if self.cpu_s else float("inf")


def measure(shape: str, size: int, runs: int, work: Path) -> Growth:
    """The figures of one shape at `size` and twice it (projects written under `work`)."""
    make = SHAPES[shape][1]
    found: list[tuple[int, float, int]] = []
    for label, n in (("", size), ("_double", 2 * size)):
        root = work / f"{shape}{label}"
        written = write(root, make(n))
        _, cpu, _, code = bench.time_migrate(root, 1, [], runs)
        found.append((written, round(cpu, 3), code))
    (small, cpu, code), (large, cpu_double, code_double) = found
    return Growth(shape, size, small, large, cpu, cpu_double, code, code_double)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), help="default: all")
    parser.add_argument("--size", type=int, help="default: each shape's own")
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    found: list[Growth] = []
    print(f"{'shape':16} {'size':>7} {'kB':>8} {'CPU s':>7} {'x2 CPU s':>9} {'growth':>7}")
    with tempfile.TemporaryDirectory(prefix="migrate-growth-") as folder:
        for shape in args.shape or list(SHAPES):
            figures = measure(shape, args.size or SHAPES[shape][0], args.runs, Path(folder))
            found.append(figures)
            mark = "  square?" if figures.growth > SQUARE else ""
            print(
                f"{shape:16} {figures.size:>7} {figures.bytes // 1024:>8} {figures.cpu_s:>7} "
                f"{figures.cpu_s_double:>9} {figures.growth:>7}{mark}",
                flush=True,
            )
    print(
        "timing: CPU s (user + system) of `migrate --dry-run --no-cache --jobs 1`, a fresh "
        f"process, best of {args.runs}; growth: at twice the size over at the size"
    )
    if args.json is not None:
        rows = [{**asdict(figures), "growth": figures.growth} for figures in found]
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
