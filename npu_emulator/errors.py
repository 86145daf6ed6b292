"""The one error the emulator raises for an API it does not emulate."""

from __future__ import annotations

from typing import NoReturn


class NotEmulatedError(NotImplementedError, AttributeError):
    """An Ascend API that the npu emulator does not provide.

    It is a ``NotImplementedError`` so that a run stops loudly, naming the API, instead
    of going on with a silently wrong stand-in. It is also an ``AttributeError`` so that
    feature probes such as ``hasattr(torch.npu, "foo")`` or ``getattr(mod, "foo", None)``
    answer "absent", as they would for a missing attribute.
    """


def not_emulated(api: str, hint: str = "") -> NoReturn:
    """Raise :class:`NotEmulatedError` for ``api`` (a dotted name, e.g. ``torch.npu.foo``)."""
    message = f"npu emulator: {api} is not emulated"
    if hint:
        message = f"{message} ({hint})"
    raise NotEmulatedError(message)
