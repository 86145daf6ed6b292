import accelerate.utils as au
from accelerate import Accelerator
from accelerate import DeepSpeedPlugin as DSP


def make_accelerator(stage3: bool) -> Accelerator:
    if stage3:
        plugin = au.DeepSpeedPlugin()
    else:
        plugin = DSP()
    return Accelerator(deepspeed_plugin=plugin)
