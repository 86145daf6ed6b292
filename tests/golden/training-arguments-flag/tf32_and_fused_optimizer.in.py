import transformers
from transformers import TrainingArguments
from trl import SFTConfig

args = TrainingArguments(output_dir="out", tf32=True, fp16=True, optim="adamw_torch_fused")
sft = SFTConfig(
    "out",
    bf16=True,
    tf32=True,
)
seq = transformers.Seq2SeqTrainingArguments("out", tf32=False)
