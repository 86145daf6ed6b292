from accelerate import Accelerator, DeepSpeedPlugin

DS_CONFIG = {"zero_optimization": {"stage": 2}, "bf16": {"enabled": True}}
plugin = DeepSpeedPlugin(hf_ds_config=DS_CONFIG)
accelerator = Accelerator(deepspeed_plugin=plugin)
