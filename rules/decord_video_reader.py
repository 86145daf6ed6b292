"""decord video readers and GPU decoding contexts."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import add_keyword, find_arg, string_value
from migrator.contract.names import bound_reference, imported_reference
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import Trigger

_READERS = frozenset(
    {
        "decord.VideoReader",
        "decord.video_reader.VideoReader",
        "decord.VideoLoader",
        "decord.video_loader.VideoLoader",
    }
)
_CONTEXT_MODULES = ("decord", "decord.ndarray", "decord.nd")
_GPU = frozenset(f"{module}.gpu" for module in _CONTEXT_MODULES)
_CONTEXT = "ctx"


class DecordVideoReader(PythonRule):
    """Decode with decord on the CPU: explicit `ctx=decord.cpu(0)`, never `decord.gpu(i)`.

    What it does: `decord.VideoReader(...)` and `decord.VideoLoader(...)` calls that do not
    pass a context get `ctx=decord.cpu(0)`. When the call forwards `**kwargs`, the context
    is merged into them, so a caller-supplied `ctx` cannot collide ("got multiple values")
    and is overridden: `VideoReader(path, **kw)` -> `VideoReader(path, **{**kw, "ctx":
    decord.cpu(0)})`. Every `decord.gpu(i)` call becomes `decord.cpu(0)`, wherever it is
    (an argument, a variable later passed as `ctx`, a list of contexts). Names follow the
    file: `from decord import VideoReader, cpu as dcpu` gives `dcpu(0)`, `import decord as
    de` gives `de.cpu(0)`; with neither, the rule requests `from decord import cpu`.

    Why: decord has no NPU context, and its GPU context needs a decord built against CUDA
    (NVDEC), which an Ascend host does not have; only `cpu(...)` works there. DiT4DiT's
    readers already default to `cpu(0)` (`decord.VideoReader(path, **video_backend_kwargs)`),
    so spelling it out changes nothing today and guards against a caller passing a GPU
    context through the kwargs.

    Example: `decord.VideoReader(path)` -> `decord.VideoReader(path, ctx=decord.cpu(0))`.

    Safety: safe; replacing `decord.gpu(i)` needs review (decoding moves to the CPU: check
    data-loader throughput and worker count). A context given as a variable or expression
    is left alone (a `decord.gpu` call that made it is rewritten where it is); a call with
    `*args` or several `**` mappings is reported.
    """

    code = "NPU005"
    action = "port-code"
    name = "decord-video-reader"
    summary = "decord VideoReader/VideoLoader decode on the CPU: explicit ctx=cpu(0), no gpu(i)."
    # Each `*.gpu` spelling follows its aliases (`from decord import gpu as g`) like any
    # dotted token.
    trigger = Trigger(tokens=("VideoReader", "VideoLoader", *sorted(_GPU)), local=True)
    examples = (
        Example(
            "import decord\nvr = decord.VideoReader(path)\n",
            "import decord\nvr = decord.VideoReader(path, ctx=decord.cpu(0))\n",
        ),
        Example(
            "import decord\nvr = decord.VideoReader(path, **kw)\n",
            'import decord\nvr = decord.VideoReader(path, **{**kw, "ctx": decord.cpu(0)})\n',
        ),
        Example(
            "from decord import VideoReader, gpu, cpu as dcpu\nvr = VideoReader(p, ctx=gpu(1))\n",
            "from decord import VideoReader, gpu, cpu as dcpu\nvr = VideoReader(p, ctx=dcpu(0))\n",
        ),
        Example(
            "import torchvision\nreader = torchvision.io.VideoReader(path, 'video')\n",
            None,
        ),
    )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = self.qualname(original_node.func)
        if name in _GPU:
            return self._gpu_context(original_node, updated_node)
        if name in _READERS:
            return self._reader(original_node, updated_node, name.rsplit(".", 1)[-1])
        return updated_node

    def _cpu(self, callee: cst.BaseExpression | None = None) -> cst.BaseExpression | None:
        """`cpu(0)`, spelled like `callee`'s module (`de.VideoReader` -> `de.cpu`) or under
        a name the file binds (or imports)."""
        if isinstance(callee, cst.Attribute) and self.qualname(callee.value) == "decord":
            head = callee.value.deep_clone()
            return cst.Call(
                func=cst.Attribute(value=head, attr=cst.Name("cpu")),
                args=[cst.Arg(cst.Integer("0"))],
            )
        for module in _CONTEXT_MODULES:
            exact = self.local_name_for(f"{module}.cpu")
            if exact is not None:
                func: cst.BaseExpression | None = cst.Name(exact)
                break
        else:
            func = bound_reference(self, "decord.cpu") or imported_reference(self, "decord.cpu")
        if func is None:
            return None
        return cst.Call(func=func, args=[cst.Arg(cst.Integer("0"))])

    def _cannot_name(self, node: cst.CSTNode) -> None:
        self.warn(
            node,
            "no free name for decord.cpu here: context not set",
            "pass ctx=decord.cpu(0) by hand",
        )

    def _gpu_context(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if isinstance(updated.func, cst.Attribute):
            func: cst.BaseExpression = updated.func.with_changes(
                attr=updated.func.attr.with_changes(value="cpu")
            )
            replacement = updated.with_changes(func=func, args=[cst.Arg(cst.Integer("0"))])
        else:
            cpu = self._cpu()
            if not isinstance(cpu, cst.Call):
                self._cannot_name(original)
                return updated
            replacement = cpu
        return self.edit(
            original,
            updated,
            replacement,
            f"decord.gpu(...) -> decord.cpu(0): decord has no {self.target.name} context and "
            "its GPU context needs a CUDA build (decoding moves to the CPU)",
            review=True,
        )

    def _reader(self, original: cst.Call, updated: cst.Call, short: str) -> cst.Call:
        if any(arg.star == "*" for arg in updated.args):
            self.warn(
                original,
                f"{short}(*args): cannot tell whether a decoding context is passed",
                "make sure the context is decord.cpu(0)",
            )
            return updated
        if find_arg(updated, 1, _CONTEXT) is not None:
            return updated
        mappings = [arg for arg in updated.args if arg.star == "**"]
        if any(_literal_keys(arg.value) & {_CONTEXT} for arg in mappings):
            return updated
        if len(mappings) > 1:
            self.warn(
                original,
                f"{short} with several ** mappings: context not set",
                'merge them and add "ctx": decord.cpu(0)',
            )
            return updated
        cpu = self._cpu(updated.func)
        if cpu is None:
            self._cannot_name(original)
            return updated
        if mappings:
            mapping = mappings[0]
            merged = cst.Dict(
                [
                    cst.StarredDictElement(mapping.value),
                    cst.DictElement(cst.SimpleString(f'"{_CONTEXT}"'), cpu),
                ]
            )
            replacement = updated.with_changes(
                args=[
                    arg.with_changes(value=merged) if arg is mapping else arg
                    for arg in updated.args
                ]
            )
            message = (
                f"{short}: ctx=decord.cpu(0) merged into the ** mapping (overrides a caller's ctx)"
            )
        else:
            replacement = add_keyword(updated, _CONTEXT, cpu)
            message = f"{short}: added ctx=decord.cpu(0) (decord has no {self.target.name} context)"
        return self.edit(original, updated, replacement, message)


def _literal_keys(node: cst.BaseExpression) -> set[str]:
    """String keys of a dict display (`{"ctx": ...}`); empty for anything else."""
    if not isinstance(node, cst.Dict):
        return set()
    keys: set[str] = set()
    for element in node.elements:
        if isinstance(element, cst.DictElement):
            key = string_value(element.key)
            if key is not None:
                keys.add(key)
    return keys
