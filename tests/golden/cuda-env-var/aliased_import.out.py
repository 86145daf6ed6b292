import os as _os
from os import environ, getenv

environ["ASCEND_RT_VISIBLE_DEVICES"] = "0"
_os.environ["ASCEND_LAUNCH_BLOCKING"] = "1"
devices = getenv("ASCEND_RT_VISIBLE_DEVICES")
