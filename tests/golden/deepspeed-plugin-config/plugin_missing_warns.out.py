from accelerate import Accelerator

# Upstream moved the DeepSpeed set-up elsewhere.
accelerator = Accelerator()
