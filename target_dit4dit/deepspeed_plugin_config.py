"""A DeepSpeed config file hard-wired into accelerate's DeepSpeedPlugin."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import remove_arg
from migrator.analysis.statements import code_of
from migrator.contract.expected import expected_in_paths, not_found
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Safety
from target_dit4dit import TRAINER

_PLUGINS = frozenset(
    {
        "accelerate.DeepSpeedPlugin",
        "accelerate.utils.DeepSpeedPlugin",
        "accelerate.utils.dataclasses.DeepSpeedPlugin",
    }
)
_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


class DeepspeedPluginConfig(PythonRule):
    """Let the accelerate config file choose the DeepSpeed set-up: `DeepSpeedPlugin()`.

    What it does: in DiT4DiT's trainer, `DeepSpeedPlugin(hf_ds_config="<path>")` (accelerate's,
    found through any alias: `from accelerate import DeepSpeedPlugin as DSP`,
    `accelerate.utils.DeepSpeedPlugin`) loses its `hf_ds_config` argument (keyword or first
    positional), so the plugin reads the DeepSpeed set-up that `accelerate launch
    --config_file ...` puts in the environment.

    Why: upstream builds the plugin at import time from the repository's own ZeRO-2 file
    (`DiT4DiT/config/deepseeds/ds_config.yaml`, relative to the working directory). A plugin
    given a config overrides the launch config, so launching with the ZeRO-3 accelerate
    config still trains with ZeRO-2: ZeRO-3 never takes effect. With an empty plugin the
    launch config decides.

    Example: `DeepSpeedPlugin(hf_ds_config="DiT4DiT/config/deepseeds/ds_config.yaml")` becomes
    `DeepSpeedPlugin()`.

    Safety: needs review. The DeepSpeed settings now come from the launch config: the shipped
    scripts launch with `deepspeed_zero2.yaml`, which names the same `ds_config.yaml`, so
    nothing changes for them; an accelerate config without `deepspeed_config_file` (such as
    `zero2.yaml`) builds its own DeepSpeed config, without `ds_config.yaml`'s
    `gradient_clipping: 1.0` (accelerate's `clip_grad_norm_` does not clip under DeepSpeed).

    Caveats: a config given as an expression (a variable, a dict built in code) is reported,
    not removed: move it into the accelerate config's `deepspeed_config_file` by hand. Other
    arguments left in the call (`zero_stage=2`, ...) still take part: they fill the DeepSpeed
    file's `"auto"` values, and replace the accelerate config's own settings when it names no
    file; the change message names them. Started without `accelerate launch`, the plugin falls
    back to accelerate's defaults (ZeRO-2, no bf16). In the trainer without any
    `DeepSpeedPlugin` call, a warning says so (upstream may have changed the set-up).
    """

    code = "DIT001"
    action = "port-code"
    name = "deepspeed-plugin-config"
    summary = (
        "DeepSpeedPlugin(hf_ds_config=...) -> DeepSpeedPlugin(): the accelerate config decides."
    )
    safety = Safety.REVIEW
    trigger = Trigger(
        tokens=("DeepSpeedPlugin",), unit=Unit.MODULE, paths=(TRAINER,), always=expected_in_paths
    )
    examples = (
        Example(
            "from accelerate import Accelerator, DeepSpeedPlugin\n"
            'plugin = DeepSpeedPlugin(hf_ds_config="configs/ds_config.yaml")\n'
            "accelerator = Accelerator(deepspeed_plugin=plugin)\n",
            "from accelerate import Accelerator, DeepSpeedPlugin\n"
            "plugin = DeepSpeedPlugin()\n"
            "accelerator = Accelerator(deepspeed_plugin=plugin)\n",
            path=TRAINER,
        ),
        Example(
            "import accelerate\n"
            "plugin = accelerate.DeepSpeedPlugin()\n"
            'print("DeepSpeedPlugin(hf_ds_config=...) is gone")\n',
            None,
            path=TRAINER,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._plugins = 0

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if self.qualname(original_node.func) not in _PLUGINS:
            return updated_node
        self._plugins += 1
        index = self._config_index(original_node)
        if index is None:
            return updated_node
        config = original_node.args[index]
        value = config.value
        if isinstance(value, cst.Name) and value.value == "None":
            return updated_node
        shown = code_of(value)
        if not isinstance(value, _STRINGS):
            self.warn(
                original_node,
                f"DeepSpeedPlugin gets its DeepSpeed config from code ({shown}), which overrides "
                "the accelerate --config_file (ZeRO-3 configs never apply)",
                "move that config into the accelerate config's deepspeed_config_file and call "
                "DeepSpeedPlugin() without it",
            )
            return updated_node
        if config.keyword is None and any(
            arg.keyword is None for arg in original_node.args[index + 1 :]
        ):
            self.warn(
                original_node,
                "DeepSpeedPlugin takes its config positionally, followed by more positional "
                "arguments; removing it would shift them",
                "pass the remaining arguments by keyword, then drop the config",
            )
            return updated_node
        replacement = remove_arg(updated_node, updated_node.args[index])
        message = (
            f"DeepSpeedPlugin config {shown} removed: the accelerate --config_file now decides "
            "the DeepSpeed set-up (the in-code config overrode it, so ZeRO-3 never applied); "
            "check that the launch config carries what that file set"
        )
        if replacement.args:
            kept = ", ".join(
                code_of(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
                for arg in replacement.args
            )
            message += (
                f'; the arguments left ({kept}) still fill the DeepSpeed file\'s "auto" values '
                "or replace the accelerate config's own"
            )
        return self.edit(original_node, updated_node, replacement, message)

    @staticmethod
    def _config_index(call: cst.Call) -> int | None:
        for index, arg in enumerate(call.args):
            if arg.star:
                return None
            if arg.keyword is not None:
                if arg.keyword.value == "hf_ds_config":
                    return index
                continue
            return index if index == 0 else None
        return None

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self._plugins:
            self.warn(
                original_node,
                not_found("accelerate's DeepSpeedPlugin(...)", self.ctx.path),
                "make sure no DeepSpeed config built in code overrides the accelerate "
                "--config_file: ZeRO-3 must come from the launch config",
            )
        return updated_node
