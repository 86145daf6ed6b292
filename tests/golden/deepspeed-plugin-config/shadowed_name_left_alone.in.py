from accelerate import Accelerator


class DeepSpeedPlugin:
    def __init__(self, hf_ds_config: str) -> None:
        self.path = hf_ds_config


plugin = DeepSpeedPlugin(hf_ds_config="configs/zero2.json")
accelerator = Accelerator()
