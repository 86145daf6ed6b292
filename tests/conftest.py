from __future__ import annotations

import pytest

pytest_plugins = ["tests.fixture_rules"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="Rewrite golden .out files and .changes from the current rules (review the diff).",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(autouse=True)
def isolated_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets an empty cache of its own, never the user's."""
    monkeypatch.setenv("NPU_MIGRATOR_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the emulator's tests last: their `npu` fixture emulates the NPU in this process
    for good (it cannot be undone), and no other test should see an emulated torch."""
    emulated = [item for item in items if item.nodeid.startswith("tests/emulate/")]
    others = [item for item in items if not item.nodeid.startswith("tests/emulate/")]
    items[:] = others + emulated
