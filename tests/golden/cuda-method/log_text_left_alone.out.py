"""Call model.cuda() before training."""


def hint(logger):
    # x.cuda() is what the original code did
    logger.info("call .cuda() on the model")
    print("tensor.cuda()")
