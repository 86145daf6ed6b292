from torch.cuda.amp import GradScaler

# NPU012 moves the import; the call keeps its arguments.
scaler = GradScaler(2.0**16, enabled=True)
