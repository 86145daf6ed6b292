"""The script accelerate starts in every process of a smoke run.

``accelerate launch -m target_dit4dit.smoke.launch TRAIN_PY ARGS`` prepares the interpreter,
then runs the checkout's ``train.py`` exactly as ``python TRAIN_PY ARGS`` would: as
``__main__``, with its own folder first on ``sys.path`` and its own ``sys.argv``. The checkout's
code is never changed; only the interpreter around it is.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def main(argv: list[str]) -> None:
    if not argv:
        raise SystemExit("usage: python -m target_dit4dit.smoke.launch TRAIN_PY [ARGS...]")
    from target_dit4dit.smoke.torchvision_guard import ensure_torchvision_importable

    ensure_torchvision_importable()
    script = Path(argv[0]).resolve()
    sys.argv = [str(script), *argv[1:]]
    sys.path[0] = str(script.parent)
    runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
