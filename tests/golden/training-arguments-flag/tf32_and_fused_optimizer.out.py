import transformers
from transformers import TrainingArguments
from trl import SFTConfig

args = TrainingArguments(output_dir="out", tf32=False, fp16=True, optim="adamw_torch")
sft = SFTConfig(
    "out",
    bf16=True,
    tf32=False,
)
seq = transformers.Seq2SeqTrainingArguments("out", tf32=False)
