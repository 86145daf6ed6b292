class DiT4DiT:
    pass
