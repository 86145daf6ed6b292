from transformers import TrainingArguments

args = TrainingArguments("out", fp16=True, fp16_backend="apex", optim="adamw_apex_fused")
other = TrainingArguments("out", half_precision_backend="apex")
