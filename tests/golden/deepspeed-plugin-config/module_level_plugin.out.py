import os

from accelerate import Accelerator, DeepSpeedPlugin

# Built once, when the trainer module is imported.
plugin = DeepSpeedPlugin()
accelerator = Accelerator(deepspeed_plugin=plugin)
os.environ["TOKENIZERS_PARALLELISM"] = "false"
