"""One requirement string as a report line: what a CUDA dependency needs on the target.

For files the tool reports on and does not rewrite (`setup.py`, `setup.cfg`): the same
policy as the rewriting rules (`migrator.analysis.dependencies`), phrased as a warning.
"""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement

from migrator.analysis.dependencies import (
    choose_torch,
    is_cuda_library,
    kept_off_aarch64,
    normalize,
    wheel_advice,
)
from migrator.core.target import Target


def requirement_warning(text: str, target: Target) -> tuple[str, str] | None:
    """(message, suggestion) for a CUDA requirement, or None when it needs nothing.

    The suggestion is a template: `{topic}` placeholders name `Target.equivalents` (the
    rule fills them, as `migrator.contract.unsupported.fill` does).
    """
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return None
    name = normalize(requirement.name)
    runtime = target.runtime_requirement
    device = target.device_type.upper()
    if is_cuda_library(name):
        return f"{text}: a wheel of torch's CUDA build, not used with {runtime}", "drop it"
    if name == "torch":
        specifiers = list(requirement.specifier)
        if len(specifiers) != 1 or specifiers[0].operator != "==":
            return None
        version = specifiers[0].version
        base, _, local = version.partition("+")
        choice = choose_torch(base, target.runtime_torch_versions)
        if choice.version is None:
            return (
                f"{text}: {choice.reason}",
                f"pin torch to one of {', '.join(choice.candidates)} with {runtime}==X.*",
            )
        if choice.version != base or local.startswith(("cu", "rocm")):
            why = choice.reason or f"a GPU build, not the CPU build {runtime} needs"
            return f"{text}: {why}", (
                f"pin torch=={choice.version} and add {runtime}=={choice.version}.*"
            )
        return None
    advice = wheel_advice(name)
    if advice is None or (advice.aarch64_only and kept_off_aarch64(str(requirement.marker or ""))):
        return None
    why = f" ({advice.why})" if advice.why else ""
    return f"{name} has no {device} build{why}", advice.suggestion
