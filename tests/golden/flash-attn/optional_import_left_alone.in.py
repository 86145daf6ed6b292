try:
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None

if is_flash_attn_available():
    import flash_attn
