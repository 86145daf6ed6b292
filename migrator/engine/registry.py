"""Finding rules and profiles: modules of `rules/` and of the `npu_migrator.targets` packages.

Adding a rule is adding a module; nothing else is edited by hand. A profile package is found
only through its `npu_migrator.targets` entry point, never by scanning `sys.path`: a project's
own `target_*` folder on the path is the user's code, and migrating never imports it.

The tool's own top-level packages (`rules`, `target_dit4dit`) have generic names that a
project folder on `PYTHONPATH` (or the current folder) can shadow. Before importing one, its
spec is looked up without executing anything and must lie inside the tool's installation;
otherwise the run stops with `ShadowedError`.

`load()` imports every rule (`--list-rules`, `--explain`, the docs); a run reads
`catalog()`, which takes each package's rules from its trigger index
(`migrator.engine.index`) and imports a rule's module only when a file needs it.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import pkgutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import migrator
from migrator.contract.profile import GENERIC, Profile, Step
from migrator.engine import distributions, index
from migrator.engine.distributions import EntryPoint
from migrator.engine.index import RuleEntry

if TYPE_CHECKING:
    from migrator.contract.rule import Rule

GENERIC_PACKAGE = "rules"
ENTRY_POINT_GROUP = "npu_migrator.targets"
DISTRIBUTION = "npu-migrator"


class RegistryError(Exception):
    """A rule package breaks the contract (duplicate code, malformed name...)."""


class ShadowedError(RegistryError):
    """One of the tool's own packages would be imported from somewhere else (user code)."""


@dataclass(frozen=True)
class Registry:
    rules: tuple[type[Rule], ...]
    profiles: tuple[Profile, ...]
    packages: dict[type[Rule], str]
    # Extra `migrate` sub-commands a target package offers (e.g. `migrate smoke`).
    commands: tuple[object, ...] = ()
    # The profiles' steps, by code: registered items like rules (`--explain`, `--select`).
    steps: Mapping[str, Step] = field(default_factory=dict)
    # Retired code -> the code that replaced it (see the code policy in `rules/__init__.py`).
    aliases: Mapping[str, str] = field(default_factory=dict)

    def by_code(self, code: str) -> type[Rule] | None:
        return next((rule for rule in self.rules if rule.code == code.upper()), None)

    def step(self, code: str) -> Step | None:
        return self.steps.get(code.upper())

    @property
    def codes(self) -> tuple[str, ...]:
        """Every code a report can show: the rules' and the steps'."""
        return tuple(sorted([*(rule.code for rule in self.rules), *self.steps]))

    def profile(self, name: str) -> Profile | None:
        return next((profile for profile in self.profiles if profile.name == name), None)

    def for_profile(self, profile: Profile) -> list[type[Rule]]:
        """The profile's rules, in the order they run."""
        chosen = [
            rule
            for rule in self.rules
            if (self.packages[rule] == GENERIC_PACKAGE or self.packages[rule] in profile.packages)
            and rule.code not in profile.leaves_out
        ]
        return sorted(chosen, key=lambda rule: (rule.priority, rule.code))


def _target_entries() -> list[EntryPoint]:
    """The profile packages installed distributions declare, by package name."""
    # Read without importing importlib.metadata (see `migrator.engine.distributions`).
    found = {entry.value: entry for entry in distributions.entry_points(ENTRY_POINT_GROUP)}
    return [found[name] for name in sorted(found)]


def _is_own(entry: EntryPoint) -> bool:
    return entry.project == distributions.normalize(DISTRIBUTION)


def installation() -> Path:
    """The folder the tool's top-level packages (`migrator`, `rules`, ...) are installed in."""
    return Path(migrator.__file__).resolve().parent.parent


def check_own(name: str) -> None:
    """Refuse to import `name` from anywhere but the tool's installation.

    `find_spec` of a top-level name reads the import system's finders only; nothing of the
    package found is executed.
    """
    spec = importlib.util.find_spec(name)
    origin = None if spec is None else spec.origin
    if origin is None:
        raise ShadowedError(f"{name}: the tool's package {name!r} is not installed")
    folder = Path(origin).resolve().parent
    if folder.parent != installation():
        raise ShadowedError(
            f"{folder}: this folder shadows npu-migrator's own {name!r} package (on PYTHONPATH "
            "or the current folder); run from another folder or without PYTHONPATH, or "
            "install the tool apart with pipx or `uv tool install`"
        )


def _rule_classes(module: ModuleType) -> list[type[Rule]]:
    from migrator.contract.rule import PythonRule, TextRule

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


def validate(
    rules: Sequence[type[Rule]],
    steps: Sequence[Step] = (),
    aliases: Mapping[str, str] | None = None,
) -> None:
    from migrator.contract.rule import CODE_PATTERN, NAME_PATTERN

    rule_codes = {rule.code for rule in rules}
    step_codes: set[str] = set()
    for step in steps:
        if not CODE_PATTERN.match(step.code):
            raise RegistryError(
                f"step {step.name}: code {step.code!r} is not three letters + 3 digits"
            )
        if step.code in rule_codes or step.code in step_codes:
            raise RegistryError(f"step {step.name}: code {step.code} is also used")
        if not step.explain():
            raise RegistryError(f"step {step.name}: {step.code} has no docstring to explain it")
        step_codes.add(step.code)
    for old, new in (aliases or {}).items():
        if old in rule_codes or old in step_codes:
            raise RegistryError(f"alias {old} is still a live code (codes are never reused)")
        if new not in rule_codes and new not in step_codes:
            raise RegistryError(f"alias {old} names {new}, which is not a registered code")
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
        _check_trigger(rule, where)
        seen_codes[rule.code] = rule
        seen_names[rule.name] = rule


# What rules declared before the `Trigger` (they now go in it: CONTRIBUTING.md, "Triggers").
OLD_HOOKS = (
    "tokens",
    "token_patterns",
    "patterns",
    "paths",
    "whole_module",
    "notebooks",
    "may_act_on",
    "may_act_on_ast",
    "may_act_on_module",
    "file_facts",
    "always_for",
    "applies_to",
    "handles",
)


def _check_trigger(rule: type[Rule], where: str) -> None:
    from migrator.contract.expected import expected_in_paths
    from migrator.contract.rule import TextRule
    from migrator.contract.trigger import Trigger, Unit

    old = [name for name in OLD_HOOKS if hasattr(rule, name)]
    if old:
        raise RegistryError(
            f"{where}: declares {', '.join(old)}, which a Trigger now holds "
            "(see 'Triggers' in CONTRIBUTING.md)"
        )
    trigger = getattr(rule, "trigger", None)
    if not isinstance(trigger, Trigger):
        raise RegistryError(f"{where}: declares no trigger (a migrator.contract.trigger.Trigger)")
    if not trigger.tokens and not trigger.patterns:
        raise RegistryError(f"{where}: its trigger declares no tokens or patterns")
    text = issubclass(rule, TextRule)
    if text != (trigger.unit is Unit.FILE):
        raise RegistryError(
            f"{where}: a text rule's trigger has unit=Unit.FILE, a Python rule's "
            "Unit.STATEMENT or Unit.MODULE"
        )
    if text and not trigger.files:
        raise RegistryError(f"{where}: a text rule's trigger names its files (globs)")
    if not text and trigger.files:
        raise RegistryError(f"{where}: `files` is for text rules; use `paths`")
    if trigger.always is expected_in_paths and not text and not trigger.paths:
        raise RegistryError(f"{where}: always=expected_in_paths needs `paths`")


def _package_names() -> list[str]:
    """The rule packages, generic first: `rules`, then the target packages' (checked to be
    the tool's own where their distribution is)."""
    check_own(GENERIC_PACKAGE)
    names = [GENERIC_PACKAGE]
    for entry in _target_entries():
        if _is_own(entry):
            check_own(entry.value)
        names.append(entry.value)
    return names


def own_packages() -> list[str]:
    """The rule packages this distribution ships (the ones with a committed index)."""
    own = [entry.value for entry in _target_entries() if _is_own(entry)]
    return [GENERIC_PACKAGE, *own]


def package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    return Path(spec.origin).parent


@dataclass
class _Packages:
    """What the packages' `__init__`s declare besides their rules."""

    profiles: list[Profile] = field(default_factory=lambda: [GENERIC])
    commands: list[object] = field(default_factory=list)
    aliases: dict[str, str] = field(default_factory=dict)

    def add(self, package_name: str, package: ModuleType) -> None:
        self.profiles.extend(getattr(package, "PROFILES", ()))
        if package_name == GENERIC_PACKAGE:
            # The generic profile's steps (the NPU_MIGRATION.md notes) live with its rules.
            self.profiles[0] = replace(GENERIC, steps=tuple(getattr(package, "STEPS", ())))
        self.commands.extend(getattr(package, "COMMANDS", ()))
        self.aliases.update(getattr(package, "ALIASES", {}))

    def steps(self) -> list[Step]:
        # A step object shared by two profiles is one registered item.
        return list({id(step): step for p in self.profiles for step in p.steps}.values())


@functools.lru_cache(maxsize=1)
def load() -> Registry:
    packages: dict[type[Rule], str] = {}
    found = _Packages()
    for package_name in _package_names():
        package = importlib.import_module(package_name)
        for module in _modules(package):
            for rule in _rule_classes(module):
                packages[rule] = package_name
        found.add(package_name, package)
    rules = tuple(sorted(packages, key=lambda rule: rule.code))
    unique = found.steps()
    steps = {step.code: step for step in unique}
    validate(rules, unique, found.aliases)
    return Registry(
        rules, tuple(found.profiles), packages, tuple(found.commands), steps, found.aliases
    )


@dataclass(frozen=True)
class Catalog:
    """The registry as a run reads it: rules as index entries (`migrator.engine.index`),
    each imported only when `RuleEntry.load()` is called; profiles, steps and aliases as
    their packages declare them."""

    entries: tuple[RuleEntry, ...]
    profiles: tuple[Profile, ...]
    steps: Mapping[str, Step] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)
    commands: tuple[object, ...] = ()
    # Package -> `index.digest` of its modules as they were read (the cache's run key uses
    # it rather than reading the rules' sources again); empty for a registry's view.
    digests: Mapping[str, str] = field(default_factory=dict)

    def by_code(self, code: str) -> RuleEntry | None:
        return self._by_code.get(code.upper())

    @functools.cached_property
    def _by_code(self) -> dict[str, RuleEntry]:
        # A run looks up every selected code several times (the settings' entries).
        found: dict[str, RuleEntry] = {}
        for entry in self.entries:
            found.setdefault(entry.code, entry)  # the first, as a scan would find
        return found

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(sorted([*(entry.code for entry in self.entries), *self.steps]))

    def profile(self, name: str) -> Profile | None:
        return next((profile for profile in self.profiles if profile.name == name), None)

    def for_profile(self, profile: Profile) -> list[RuleEntry]:
        """The profile's rules, in the order they run (as `Registry.for_profile`)."""
        chosen = [
            entry
            for entry in self.entries
            if (entry.package == GENERIC_PACKAGE or entry.package in profile.packages)
            and entry.code not in profile.leaves_out
        ]
        return sorted(chosen, key=lambda entry: (entry.priority, entry.code))


def catalog() -> Catalog:
    """The registry for a run. Once the full registry is in hand (`load()` has run, or a
    registry was supplied in its place) it is that one's view; otherwise it is read from the
    packages' trigger indexes, importing no rule."""
    info = getattr(load, "cache_info", None)
    if info is None or info().currsize:
        return _viewed(load())
    return from_indexes()


_VIEWS: dict[int, tuple[Registry, Catalog]] = {}


def _viewed(registry: Registry) -> Catalog:
    held = _VIEWS.get(id(registry))
    if held is not None and held[0] is registry:
        return held[1]
    entries = tuple(index.from_class(rule, registry.packages[rule]) for rule in registry.rules)
    view = Catalog(entries, registry.profiles, registry.steps, registry.aliases, registry.commands)
    _VIEWS.clear()
    _VIEWS[id(registry)] = (registry, view)
    return view


@functools.lru_cache(maxsize=1)
def from_indexes() -> Catalog:
    """The catalog as the packages' trigger indexes describe it (see `catalog`)."""
    entries: list[RuleEntry] = []
    found = _Packages()
    digests: dict[str, str] = {}
    for package_name in _package_names():
        package = importlib.import_module(package_name)
        folder = Path(package.__path__[0])
        digests[package_name] = index.digest(folder)
        read = index.read(package_name, folder, digests[package_name])
        if read is None:
            # No index, or one older than the package's modules: import its rules.
            rules = [rule for module in _modules(package) for rule in _rule_classes(module)]
            validate(rules)
            read = [index.from_class(rule, package_name) for rule in rules]
        entries.extend(read)
        found.add(package_name, package)
    unique = found.steps()
    steps = {step.code: step for step in unique}
    return Catalog(
        tuple(sorted(entries, key=lambda entry: entry.code)), tuple(found.profiles), steps,
        found.aliases, tuple(found.commands), digests,
    )  # fmt: skip
