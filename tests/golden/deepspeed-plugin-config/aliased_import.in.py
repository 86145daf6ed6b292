import accelerate.utils as au
from accelerate import Accelerator
from accelerate import DeepSpeedPlugin as DSP


def make_accelerator(stage3: bool) -> Accelerator:
    if stage3:
        plugin = au.DeepSpeedPlugin(hf_ds_config='configs/zero3.json')
    else:
        plugin = DSP(
            hf_ds_config="configs/zero2.json",
        )
    return Accelerator(deepspeed_plugin=plugin)
