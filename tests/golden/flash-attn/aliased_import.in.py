import flash_attn as fa
from flash_attn_interface import flash_attn_func as fa3_attention


class Attention:
    def forward(self, q, k, v):
        if self.use_fa3:
            return fa3_attention(q, k, v)[0]
        return fa.flash_attn_func(q, k, v)
