from accelerate import DeepSpeedPlugin

# Only the trainer is in this rule's scope.
plugin = DeepSpeedPlugin(hf_ds_config="configs/zero2.json")
