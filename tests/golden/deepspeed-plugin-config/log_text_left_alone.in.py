"""Uses DeepSpeedPlugin(hf_ds_config="...") only in prose."""

from accelerate import Accelerator, DeepSpeedPlugin

plugin = DeepSpeedPlugin()
accelerator = Accelerator(deepspeed_plugin=plugin)
print('DeepSpeedPlugin(hf_ds_config="configs/zero2.json") is not used any more')
