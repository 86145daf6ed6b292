DEVICE = "cuda"  # migrate: ignore[NPU010]
FALLBACK = "cuda"
device = "cuda"
