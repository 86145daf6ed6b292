"""Generic CUDA -> NPU rules, one rule per module."""
