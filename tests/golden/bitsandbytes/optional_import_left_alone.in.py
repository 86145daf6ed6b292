from .utils import is_bitsandbytes_available

if is_bitsandbytes_available():
    import bitsandbytes
