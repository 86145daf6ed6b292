"""Device values in YAML, JSON and TOML configs: `device: cuda` -> `device: npu`."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

from migrator.analysis.cst_helpers import retarget_device
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import FileView, Trigger, Unit
from migrator.core.model import Finding, Safety, TextEdit
from migrator.core.project import DEVICE_KEY
from migrator.formats.json_spans import JSONSpanError, LineIndex, spans
from migrator.formats.sources import split_lines

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

# Lightning's accelerator names for CUDA; the NPU has no built-in accelerator.
_GPU_ACCELERATORS = frozenset({"gpu", "cuda"})
_QUICK = re.compile(r"cuda|accelerator", re.IGNORECASE)


def _names_a_device(view: FileView) -> bool:
    # A device key with a CUDA value, or Lightning's accelerator; most configs have
    # neither and are not read.
    text = view.text
    return ("cuda" in text and ("device" in text or "map_location" in text)) or (
        "accelerator:" in text or '"accelerator"' in text or "accelerator =" in text
    )


class ConfigDeviceValue(TextRule):
    """Point device values in configs at the NPU: `device: cuda`, `"map_location": "cuda:0"`.

    What it does: in YAML, JSON and TOML files, a value under a key that names a device
    (`device`, `*_device`, `map_location`, in any nesting, in lists, in every YAML document)
    that is `cuda` or `cuda:N` becomes `npu` / `npu:N`. Only those characters change: YAML
    keeps its comments, quoting and key order (ruamel.yaml gives each value's position, the
    text is edited there), JSON keeps its layout (`migrator.formats.json_spans`), TOML its
    line. Values that are not device strings (`device: auto`, `device: 0`), and keys that do
    not name a device (`backend: cuda`), are left alone.

    Lightning's `accelerator: gpu` (or `cuda`) is reported: Lightning has no built-in NPU
    accelerator, so the trainer needs one registered for the NPU (or `accelerator: cpu` to
    try the code), which a tool cannot choose.

    Why: code reads these values into `torch.device(cfg.device)`, `.to(cfg["device"])` and
    comparisons such as `config["device"] == "cuda"`. NPU010 rewrites those comparisons to
    "npu" where the project view says the value comes from a config this rule migrates, so
    code and config agree (rewriting only one side disables `set_device` or fails an
    assert). `transfer_to_npu` maps "cuda" arguments at run time but not comparisons.

    Example: `device: cuda:0  # first card` -> `device: npu:0  # first card`.

    Safety: needs review: a config may also be read by tools that run on a CUDA host.
    """

    code = "NPU120"
    action = "host-setup"
    name = "config-device-value"
    summary = "Device values in YAML/JSON/TOML configs (device: cuda) point at the NPU."
    safety = Safety.REVIEW
    trigger = Trigger(
        tokens=("cuda", "accelerator"),
        unit=Unit.FILE,
        files=("*.yaml", "*.yml", "*.json", "*.toml"),
        gate=_names_a_device,
    )
    examples = (
        Example(
            "model:\n  device: 'cuda:0'  # first card\n  backend: cuda\n",
            "model:\n  device: 'npu:0'  # first card\n  backend: cuda\n",
            path="configs/run.yaml",
        ),
        Example(
            '{"device": "cuda", "dtype": "cuda"}\n',
            '{"device": "npu", "dtype": "cuda"}\n',
            path="config.json",
        ),
        Example(
            "trainer:\n  accelerator: gpu\n", "trainer:\n  accelerator: gpu\n", path="train.yaml"
        ),
        Example("device: auto\nname: cuda\n", path="config.yaml"),
    )

    def check(self, text: str) -> list[Finding]:
        if not _QUICK.search(text):
            return []
        path = self.ctx.path
        if path.endswith(".json"):
            found = list(_json_values(text))
        elif path.endswith(".toml"):
            found = list(_toml_values(text))
        else:
            found = list(_yaml_values(text))
        lines = split_lines(text)
        starts = [0]
        for raw_line in lines:
            starts.append(starts[-1] + len(raw_line))
        results: list[Finding] = []
        source, device = self.target.source_device_type, self.target.device_type
        for line, col, key, value in sorted(found, key=lambda f: (f[0], f[1]), reverse=True):
            if line >= len(lines):
                continue
            if key == "accelerator":
                if value.strip().lower() in _GPU_ACCELERATORS:
                    warning = self.warning(
                        line + 1,
                        col + 1,
                        f"Lightning accelerator {value!r}: Lightning has no built-in "
                        f"{device.upper()} accelerator",
                        f"register an accelerator for the {device.upper()} (a community "
                        "NPU accelerator) and name it here, or use 'cpu' to try the code",
                    )
                    results.append(warning)
                continue
            new = retarget_device(value.strip(), source, device)
            if new is None or DEVICE_KEY.match(key) is None:
                continue
            raw = lines[line]
            at = raw.find(value.strip(), col)
            if at < 0:
                continue
            edit = TextEdit(starts[line] + at, starts[line] + at + len(value.strip()), new)
            message = f"config {key}: {value.strip()!r} -> {new!r}"
            results.append(self.change(line + 1, at + 1, message, edit))
        return results


def _json_values(text: str) -> Iterator[tuple[int, int, str, str]]:
    try:
        found = spans(text)
    except (JSONSpanError, ValueError, RecursionError):
        return
    # Only the keys `check` reads, each placed through one index of the lines: a large JSON
    # file (a dataset's annotations) holds a million strings, and counting the lines before
    # each took minutes on a 5 MB file.
    lines = LineIndex(text)
    for key, span in found.items():
        if (
            key
            and isinstance(key[-1], str)
            and (key[-1] == "accelerator" or DEVICE_KEY.match(key[-1]) is not None)
            and isinstance(span.value, str)
        ):
            line, col = lines.line_col(span.start)
            yield line - 1, col - 1, key[-1], span.value


def _toml_values(text: str) -> Iterator[tuple[int, int, str, str]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return
    keys = {key for key in _toml_keys(data) if DEVICE_KEY.match(key) or key == "accelerator"}
    for number, raw in enumerate(split_lines(text)):
        match = re.match(r"^\s*[\"']?(?P<key>[\w-]+)[\"']?\s*=\s*[\"'](?P<value>[^\"']*)[\"']", raw)
        if match is not None and match.group("key") in keys:
            yield number, match.start("value"), match.group("key"), match.group("value")


def _toml_keys(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for name, item in value.items():
            if isinstance(item, str):
                yield str(name)
            yield from _toml_keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _toml_keys(item)


def _yaml_values(text: str) -> Iterator[tuple[int, int, str, str]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        documents = list(YAML(typ="rt").load_all(text))
    except (YAMLError, ValueError, RecursionError):
        return
    for document in documents:
        yield from _yaml_walk(document)


def _yaml_walk(node: Any) -> Iterator[tuple[int, int, str, str]]:
    if isinstance(node, dict):
        for name, value in node.items():
            if isinstance(name, str) and isinstance(value, str) and hasattr(node, "lc"):
                if DEVICE_KEY.match(name) or name == "accelerator":
                    line, col = node.lc.value(name)
                    yield line, col, name, value
            else:
                yield from _yaml_walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _yaml_walk(value)
