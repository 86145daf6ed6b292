from torch.cuda.amp import GradScaler

# NPU012 moves the import; NPU013 puts the device first and asks for torch.amp's scaler,
# so the call is right even where NPU012 is not selected.
scaler = GradScaler(2.0**16, enabled=True)
