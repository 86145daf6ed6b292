"""Pinned host memory and DataLoader(pin_memory=True)."""

from __future__ import annotations

from types import ModuleType

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset


def test_pin_memory_gives_a_pinned_copy(npu: ModuleType) -> None:
    host = torch.arange(4.0)
    pinned = host.pin_memory()
    assert pinned.is_pinned() and not host.is_pinned()
    assert pinned.data_ptr() != host.data_ptr() and torch.equal(pinned, host)
    assert pinned.pin_memory() is pinned
    assert pinned[1:].is_pinned()  # views share the pinned storage


def test_npu_tensors_cannot_be_pinned(npu: ModuleType) -> None:
    on_npu = torch.ones(2, device="npu")
    assert not on_npu.is_pinned()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        on_npu.pin_memory()


def test_dataloader_pins_batches_for_the_npu(npu: ModuleType) -> None:
    data = TensorDataset(torch.randn(10, 3), torch.arange(10))
    loader = DataLoader(data, batch_size=4, pin_memory=True)
    batches = list(loader)
    assert len(batches) == 3
    for features, labels in batches:
        assert features.is_pinned() and labels.is_pinned()
        moved = features.to("npu", non_blocking=True)
        assert moved.device.type == "npu" and torch.equal(moved.cpu(), features)
