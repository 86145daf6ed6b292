from bitsandbytes.optim import PagedAdamW8bit as Paged
from transformers import BitsAndBytesConfig as Quant

optimizer = Paged(params, lr=1e-4)
config = Quant(load_in_4bit=True)
