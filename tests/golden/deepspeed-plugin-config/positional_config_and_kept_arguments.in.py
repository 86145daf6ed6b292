from accelerate import Accelerator, DeepSpeedPlugin

first = DeepSpeedPlugin("configs/zero2.json", zero_stage=2)
second = DeepSpeedPlugin("configs/zero2.json", 4)
accelerator = Accelerator(deepspeed_plugin=first)
