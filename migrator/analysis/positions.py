"""Node positions of a LibCST tree: the one module that uses LibCST's private API.

`MetadataWrapper(module).resolve(PositionProvider)` walks the whole tree once more for
batchable providers, even when none is asked for, and copies the result; calling the
provider's code generation directly takes about half the time. It reads names LibCST
does not export (`Module._codegen`, `PositionProvidingCodegenState`, the provider's
`_computed`), so `tests/test_positions.py` checks it against the public wrapper and
pins the libcst versions `pyproject.toml` allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState


def code_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """What `MetadataWrapper(module).resolve(PositionProvider)` gives, for about half the
    time."""
    provider = PositionProvider()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=provider,
    )
    module._codegen(state)
    return cast(Mapping[cst.CSTNode, CodeRange], provider._computed)
