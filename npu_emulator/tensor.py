"""The npu tensor: reports device ``npu:N`` to PyTorch and keeps its data in a CPU tensor.

It is a wrapper subclass (the pattern PyTorch documents for Python backends): the
wrapper carries shape, strides, dtype and the npu device, autograd and autocast work on
it as on any device tensor, and every aten op reaching it goes to
:func:`npu_emulator.dispatch.execute`, which runs the op on the CPU tensors inside.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any, ClassVar

import torch
from torch._ops import OpOverload

from npu_emulator import _torch, devices, storage
from npu_emulator.errors import not_emulated


class NpuTensor(torch.Tensor):
    """A tensor on an emulated Ascend card.

    PyTorch's C++ side sees every npu tensor on ``npu:0``: the device guard of a Python
    backend reports one device, and the autograd engine keeps one queue per reported
    device. The card a tensor is on, ``npu:N``, is kept in ``_npu_index`` and shown by
    ``tensor.device`` and ``tensor.get_device()``.
    """

    _inner: torch.Tensor
    _npu_index: int

    # Run Python-level torch functions as for a plain tensor; only aten ops are ours.
    __torch_function__: ClassVar[Any] = torch._C._disabled_torch_function_impl

    @staticmethod
    def __new__(cls, inner: torch.Tensor, index: int) -> NpuTensor:
        wrapper: NpuTensor = torch.Tensor._make_wrapper_subclass(
            cls,
            inner.size(),
            strides=inner.stride(),
            storage_offset=inner.storage_offset(),
            dtype=inner.dtype,
            layout=inner.layout,
            device=devices.torch_device(0),
            requires_grad=False,
        )
        wrapper._inner = inner
        wrapper._npu_index = index
        return wrapper

    def __init__(self, inner: torch.Tensor, index: int) -> None:
        # All state is set in __new__; this only swallows the constructor arguments.
        super().__init__()

    @classmethod
    def __torch_dispatch__(  # type: ignore[override]  # torch types it as the disabled impl
        cls,
        func: OpOverload,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        from npu_emulator.dispatch import execute

        return execute(func, args, kwargs or {})

    @property
    def device(self) -> torch.device:  # type: ignore[override]  # a property there too, at run time
        return devices.torch_device(self._npu_index)

    def get_device(self) -> int:
        return self._npu_index

    # PyTorch decides in C++ whether `.to()` may return the tensor itself, comparing the
    # device it sees (always npu:0) with the one asked for; so on any other card
    # `x.to(x.device)` would copy (ZeRO-3 relies on that aliasing: it points a parameter
    # at a buffer before an async all-gather fills it) and `x.to("npu:0")` would alias.
    # The card is compared here, with the rules of a real device.
    def to(self, *args: Any, **kwargs: Any) -> torch.Tensor:
        # `copy` comes third (after a dtype or tensor) or fourth (after device, dtype,
        # non_blocking) and the argument parser PyTorch exposes refuses it: set it apart.
        first = args[0] if args else None
        position = 2 if isinstance(first, (torch.dtype, torch.Tensor)) else 3
        copy = bool(args[position] if len(args) > position else kwargs.get("copy", False))
        parse_args = args[:position]
        parse_kwargs = {k: v for k, v in kwargs.items() if k != "copy"}
        if isinstance(first, torch.Tensor):
            target: torch.device | None = first.device
            dtype: torch.dtype | None = first.dtype
            memory_format = parse_kwargs.get("memory_format")
        else:
            target, dtype, _, memory_format = torch._C._nn._parse_to(*parse_args, **parse_kwargs)
        index = self._npu_index
        if target is not None and target.type == devices.DEVICE_TYPE:
            index = devices.index_of(target)
        elif target is not None:
            return super().to(*args, **kwargs)
        unchanged = (dtype is None or dtype == self.dtype) and memory_format in (
            None,
            torch.preserve_format,
        )
        if index == self._npu_index and unchanged and not copy:
            return self
        if index == self._npu_index:
            return super().to(*args, **kwargs)
        # Another card: PyTorch could see npu:0 == npu:0 and alias, so the copy is asked
        # for; the dispatcher then names the card npu:0 ("the current card"), so the
        # target is made current while the copy runs.
        previous = devices.current()
        devices.set_current(index)
        try:
            return super().to(*parse_args, **{**parse_kwargs, "copy": True})
        finally:
            devices.set_current(previous)

    # Flattening makes this a "traceable wrapper subclass": Module.to() then swaps the
    # parameter in place (torch.utils.swap_tensors) instead of creating a new Parameter,
    # so optimizers built before model.to("npu") keep pointing at the live parameters,
    # as they do on a real device.
    def __tensor_flatten__(self) -> tuple[list[str], int]:
        return ["_inner"], self._npu_index

    @staticmethod
    def __tensor_unflatten__(
        inner_tensors: dict[str, torch.Tensor], index: int, outer_size: Any, outer_stride: Any
    ) -> NpuTensor:
        return NpuTensor(inner_tensors["_inner"], index)

    def __reduce_ex__(self, proto: object) -> tuple[Any, ...]:
        # The standard rebuild of a dense tensor. Its storage is tagged "npu:N" when
        # saved (see serialization.py), so torch.load honours map_location as it does
        # for a checkpoint written on a real NPU host.
        if getattr(self, "_is_param", False):
            return (
                torch._utils._rebuild_parameter,
                (self.detach(), self.requires_grad, OrderedDict()),
            )
        inner = self._inner
        typed = _torch.typed_storage(inner.untyped_storage(), inner.dtype)
        return (
            torch._utils._rebuild_tensor_v2,
            (
                typed,
                inner.storage_offset(),
                tuple(inner.size()),
                inner.stride(),
                self.requires_grad,
                OrderedDict(),
            ),
        )

    def __deepcopy__(self, memo: dict[int, Any]) -> NpuTensor:
        if id(self) in memo:
            copied: NpuTensor = memo[id(self)]
            return copied
        with torch.no_grad():
            new = wrap(self._inner.clone(memory_format=torch.preserve_format), self._npu_index)
        new.requires_grad_(self.requires_grad)
        memo[id(self)] = new
        if self.grad is not None:
            new.grad = copy.deepcopy(self.grad, memo)
        for key, value in self.__dict__.items():
            if key not in ("_inner", "_npu_index"):
                setattr(new, key, copy.deepcopy(value, memo))
        return new

    # `.data = other` shallow-copies the TensorImpl; the CPU tensor inside lives in the
    # Python object, so it has to follow by hand (ZeRO-style code assigns .data a lot).
    @property
    def data(self) -> torch.Tensor:
        value: torch.Tensor = _torch.TENSOR_DATA.__get__(self)
        return value

    @data.setter
    def data(self, value: torch.Tensor) -> None:
        if not isinstance(value, NpuTensor):
            # Back to the host (ZeRO offload, `param.data = param.data.cpu()`).
            from npu_emulator.parameters import move_data

            move_data(self, value)
            return
        _torch.TENSOR_DATA.__set__(self, value)
        self._inner = value._inner
        self._npu_index = value._npu_index

    # Host-side views of the memory: the CPU tensor inside is the memory.
    def untyped_storage(self) -> torch.UntypedStorage:
        return self._inner.untyped_storage()

    def data_ptr(self) -> int:
        return self._inner.data_ptr()

    def __repr__(self, *, tensor_contents: Any = None) -> str:  # type: ignore[override]  # untyped there
        # Print as PyTorch prints any device tensor: "tensor([...], device='npu:0')",
        # and parameters as "Parameter containing:\ntensor(...)".
        text = _torch.tensor_str(self, tensor_contents)
        wrapped = "Parameter("
        is_param = text.startswith(wrapped)
        if is_param:
            text = text[len(wrapped) : -1]
        head, plain = f"{type(self).__name__}(", "tensor("
        body = text[len(head) :].replace("\n" + " " * len(head), "\n" + " " * len(plain))
        return ("Parameter containing:\n" if is_param else "") + plain + body

    def tolist(self) -> Any:
        return self._inner.tolist()

    def numpy(self, *, force: bool = False) -> Any:
        # The message PyTorch gives for any device tensor (force=True copies, as there).
        if force:
            return self.detach().cpu().numpy()
        raise TypeError(
            f"can't convert {self.device} device type tensor to numpy. "
            "Use Tensor.cpu() to copy the tensor to host memory first."
        )

    def __format__(self, format_spec: str) -> str:
        # torch.Tensor formats 0-dim values only for its exact type; printing needs it.
        if self.dim() == 0:
            return format(self.detach().item(), format_spec)
        return object.__format__(self, format_spec)

    def record_stream(self, stream: object) -> None:
        # One host memory, no allocator streams: nothing can be freed too early.
        return None


def wrap(inner: torch.Tensor, index: int) -> NpuTensor:
    """A new npu tensor on card ``index`` holding ``inner`` (counted as npu memory)."""
    if inner.layout != torch.strided:
        not_emulated(f"npu tensors with layout {inner.layout}")
    if inner.is_quantized:
        not_emulated("quantized npu tensors")
    storage.track(inner.untyped_storage(), index)
    return NpuTensor(inner, index)


def refresh(wrapper: NpuTensor, inner: torch.Tensor) -> None:
    """Make ``wrapper`` describe ``inner`` again after an op changed its shape in place.

    ``resize_``, ``unsqueeze_``, ``set_`` or an ``out=`` that resizes change the CPU
    tensor's metadata; the wrapper's own sizes are refreshed through the same shallow
    copy that ``.data =`` uses.
    """
    _torch.TENSOR_DATA.__set__(wrapper, wrap(inner, wrapper._npu_index))
    wrapper._inner = inner
