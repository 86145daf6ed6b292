from transformers import AutoModel, TrainingArguments

args = TrainingArguments("out", bf16=True, optim="adamw_torch_fused", tf32=use_tf32)
model = AutoModel.from_pretrained("m", attn_implementation="flash_attention_2")


def build(Config):
    return Config(tf32=True)
