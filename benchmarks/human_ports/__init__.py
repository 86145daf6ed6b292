"""The tool measured against Huawei's hand ports of public CUDA projects (a benchmark, not CI)."""
