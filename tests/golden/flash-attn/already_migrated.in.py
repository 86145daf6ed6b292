import torch_npu


def flash_attn_npu(q, k, v, heads):
    return torch_npu.npu_fusion_attention(q, k, v, heads, "BNSD")[0]
