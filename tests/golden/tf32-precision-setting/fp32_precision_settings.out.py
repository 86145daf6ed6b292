import torch as th

th.npu.matmul.allow_hf32 = True
th.npu.conv.allow_hf32 = False
th.backends.fp32_precision = "tf32"
th.set_float32_matmul_precision("high")
