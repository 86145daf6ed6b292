import os as _os
from os import environ, getenv

environ["CUDA_VISIBLE_DEVICES"] = "0"
_os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
devices = getenv("CUDA_VISIBLE_DEVICES")
