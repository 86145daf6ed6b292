from accelerate import Accelerator, DeepSpeedPlugin

plugin = DeepSpeedPlugin(hf_ds_config="configs/zero2.json")  # migrate: ignore[DIT001]
accelerator = Accelerator(deepspeed_plugin=plugin)
