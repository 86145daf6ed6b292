"""Finding rules and profiles: modules of `rules/` and of every top-level `target_*` package.

Adding a rule is adding a module; nothing else is edited by hand.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType

from migrator.contract.profile import GENERIC, Profile
from migrator.contract.rule import CODE_PATTERN, NAME_PATTERN, PythonRule, Rule, TextRule

GENERIC_PACKAGE = "rules"
ENTRY_POINT_GROUP = "npu_migrator.targets"
TARGET_PREFIX = "target_"


class RegistryError(Exception):
    """A rule package breaks the contract (duplicate code, malformed name...)."""


@dataclass(frozen=True)
class Registry:
    rules: tuple[type[Rule], ...]
    profiles: tuple[Profile, ...]
    packages: dict[type[Rule], str]
    # Extra `migrate` sub-commands a target package offers (e.g. `migrate smoke`).
    commands: tuple[object, ...] = ()

    def by_code(self, code: str) -> type[Rule] | None:
        return next((rule for rule in self.rules if rule.code == code.upper()), None)

    def profile(self, name: str) -> Profile | None:
        return next((profile for profile in self.profiles if profile.name == name), None)

    def for_profile(self, profile: Profile) -> list[type[Rule]]:
        """The profile's rules, in the order they run."""
        chosen = [
            rule
            for rule in self.rules
            if self.packages[rule] == GENERIC_PACKAGE or self.packages[rule] in profile.packages
        ]
        return sorted(chosen, key=lambda rule: (rule.priority, rule.code))


def _target_packages() -> list[str]:
    """`target_*` packages: declared as entry points, or found on sys.path.

    Entry points work in every install mode (an editable install hides its packages from
    a sys.path scan); the scan also finds a `target_*` package that is merely importable.
    """
    declared = {entry.value for entry in entry_points(group=ENTRY_POINT_GROUP)}
    scanned = {
        info.name
        for info in pkgutil.iter_modules()
        if info.name.startswith(TARGET_PREFIX) and info.ispkg
    }
    return sorted(declared | scanned)


def _rule_classes(module: ModuleType) -> list[type[Rule]]:
    return [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__
        and issubclass(cls, (PythonRule, TextRule))
        and "code" in cls.__dict__
    ]


def _modules(package: ModuleType) -> list[ModuleType]:
    return [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name)
        if not info.ispkg
    ]


def validate(rules: Sequence[type[Rule]]) -> None:
    seen_codes: dict[str, type[Rule]] = {}
    seen_names: dict[str, type[Rule]] = {}
    for rule in rules:
        where = f"{rule.__module__}.{rule.__qualname__}"
        if not CODE_PATTERN.match(rule.code):
            raise RegistryError(f"{where}: code {rule.code!r} is not three letters + 3 digits")
        if not NAME_PATTERN.match(rule.name):
            raise RegistryError(f"{where}: name {rule.name!r} is not kebab-case")
        if rule.code in seen_codes:
            raise RegistryError(
                f"{where}: code {rule.code} is also used by {seen_codes[rule.code]}"
            )
        if rule.name in seen_names:
            raise RegistryError(f"{where}: name {rule.name} is also used")
        if not rule.tokens and not rule.token_patterns:
            raise RegistryError(f"{where}: declares no tokens or token patterns")
        seen_codes[rule.code] = rule
        seen_names[rule.name] = rule


@functools.lru_cache(maxsize=1)
def load() -> Registry:
    packages: dict[type[Rule], str] = {}
    profiles: list[Profile] = [GENERIC]
    commands: list[object] = []
    for package_name in [GENERIC_PACKAGE, *_target_packages()]:
        package = importlib.import_module(package_name)
        for module in _modules(package):
            for rule in _rule_classes(module):
                packages[rule] = package_name
        found = getattr(package, "PROFILES", ())
        profiles.extend(found)
        commands.extend(getattr(package, "COMMANDS", ()))
    rules = tuple(sorted(packages, key=lambda rule: rule.code))
    validate(rules)
    return Registry(rules, tuple(profiles), packages, tuple(commands))
