"""`[tool.migrate]` in pyproject.toml: a project's defaults for the command-line flags.

The table is looked up from the migrated folder upwards: the nearest pyproject.toml that
*has* a `[tool.migrate]` table wins (a sub-package's own pyproject.toml without one does not
hide the project's). Paths in it (`entry`, `no-entry`, `exclude`) are relative to that
file's folder.
Unknown keys and wrong types are errors that name the key and the file.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

FILE_NAME = "pyproject.toml"
TABLE = "[tool.migrate]"

_LISTS = ("select", "ignore", "entry", "no-entry", "exclude")
_STRINGS = ("profile", "torch-npu", "patcher")
_BOOLS = ("annotate", "transfer-to-npu", "safe-only")
KEYS = tuple(sorted((*_LISTS, *_STRINGS, *_BOOLS)))


class ConfigError(Exception):
    """A pyproject.toml that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    """Values found in `[tool.migrate]`; None where the key is absent."""

    path: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    # As written: relative to `folder`.
    entry: tuple[str, ...] | None = None
    no_entry: tuple[str, ...] | None = None
    profile: str | None = None
    exclude: tuple[str, ...] | None = None
    annotate: bool | None = None
    transfer_to_npu: bool | None = None
    torch_npu: str | None = None
    patcher: str | None = None
    safe_only: bool | None = None

    @property
    def folder(self) -> Path | None:
        return None if self.path is None else self.path.parent

    def where(self, key: str) -> str:
        return f"{self.path}: {TABLE} {key}"


def toml() -> ModuleType:
    """The TOML reader, imported when a file is read: `migrate --version` and a run with no
    `pyproject.toml` never need it."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return tomllib


def _table(path: Path) -> Mapping[str, Any] | None:
    tomllib = toml()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    tool = data.get("tool")
    if not isinstance(tool, dict) or "migrate" not in tool:
        return None
    table = tool["migrate"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {TABLE} must be a table")
    return table


def find(start: Path) -> Path | None:
    """The nearest pyproject.toml with a `[tool.migrate]` table, from `start` upwards."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        path = candidate / FILE_NAME
        if path.is_file() and _table(path) is not None:
            return path
    return None


def _kind(value: object) -> str:
    return {bool: "a boolean", str: "a string", list: "a list"}.get(
        type(value), type(value).__name__
    )


def load(start: Path) -> Config:
    """The configuration that applies to `start`; an empty one when there is none."""
    path = find(start)
    if path is None:
        return Config()
    table = _table(path)
    assert table is not None
    return _config(path, table)


def load_file(path: Path) -> Config:
    """`--config FILE`: its `[tool.migrate]` table, or (a file without one, such as a
    `migrate.toml`) its top-level keys. Paths in it are relative to its folder."""
    path = path.resolve()
    if not path.is_file():
        raise ConfigError(f"{path}: no such file (--config)")
    table = _table(path)
    if table is None:
        tomllib = toml()
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{path}: not valid TOML: {error}") from None
        if "tool" in table or "project" in table:
            raise ConfigError(f"{path}: has no {TABLE} table (--config)")
    return _config(path, table)


def _config(path: Path, table: Mapping[str, Any]) -> Config:
    where = Config(path).where
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key in _LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where(key)} must be a list of strings, not {_kind(value)}")
            values[key] = tuple(value)
        elif key in _STRINGS:
            if not isinstance(value, str):
                raise ConfigError(f"{where(key)} must be a string, not {_kind(value)}")
            values[key] = value
        elif key in _BOOLS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where(key)} must be true or false, not {_kind(value)}")
            values[key] = value
        else:
            raise ConfigError(f"{path}: {TABLE} unknown key {key!r} (known: {', '.join(KEYS)})")
    return Config(
        path=path,
        select=values.get("select"),
        ignore=values.get("ignore"),
        entry=values.get("entry"),
        no_entry=values.get("no-entry"),
        profile=values.get("profile"),
        exclude=values.get("exclude"),
        annotate=values.get("annotate"),
        transfer_to_npu=values.get("transfer-to-npu"),
        torch_npu=values.get("torch-npu"),
        patcher=values.get("patcher"),
        safe_only=values.get("safe-only"),
    )
