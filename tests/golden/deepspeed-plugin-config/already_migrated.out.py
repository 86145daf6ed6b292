from accelerate import Accelerator, DeepSpeedPlugin

plugin = DeepSpeedPlugin()
other = DeepSpeedPlugin(hf_ds_config=None)
accelerator = Accelerator(deepspeed_plugin=plugin)
