import torch as th

th.backends.cuda.matmul.fp32_precision = "tf32"
th.backends.cudnn.conv.fp32_precision = "ieee"
th.backends.fp32_precision = "tf32"
th.set_float32_matmul_precision("high")
