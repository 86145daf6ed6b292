"""The target's environment-variable table: data whose every row says where it is from."""

from __future__ import annotations

from migrator.core.target import NPU


def test_every_row_names_its_documentation() -> None:
    missing = [name for name, row in NPU.env.items() if not row.reference]
    assert not missing, f"rows without a reference: {missing}"


def test_variables_nccl_does_not_document_are_reported_not_mapped() -> None:
    for name in ("NCCL_TIMEOUT", "NCCL_SOCKET_TIMEOUT_MS"):
        row = NPU.env[name]
        assert row.target is None, f"{name} is not an NCCL variable: nothing to map"
        assert "not an NCCL variable" in row.note


def test_hccl_defaults_are_never_set_by_a_mapping() -> None:
    targets = {row.target for row in NPU.env.values()}
    assert not targets & {"HCCL_EXEC_TIMEOUT", "HCCL_CONNECT_TIMEOUT"}


def test_nccl_rows_map_only_to_hccl_variables() -> None:
    for name, row in NPU.env.items():
        if name.startswith("NCCL_") and row.target is not None:
            assert row.target.startswith("HCCL_"), name
            assert "NCCL" in row.reference or "PyTorch" in row.reference, name
