import os

from accelerate import Accelerator, DeepSpeedPlugin

# Built once, when the trainer module is imported.
plugin = DeepSpeedPlugin(hf_ds_config="project/configs/zero2.json")
accelerator = Accelerator(deepspeed_plugin=plugin)
os.environ["TOKENIZERS_PARALLELISM"] = "false"
