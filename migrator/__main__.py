from __future__ import annotations

from migrator.cli import main

main()
