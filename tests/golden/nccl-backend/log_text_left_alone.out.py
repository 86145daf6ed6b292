"""Initialises the "nccl" process group."""
import logging

logger = logging.getLogger(__name__)
LIBRARIES = ["nccl", "cudnn"]


def hint():
    # init_process_group("nccl") used to be here
    logger.info("using %s", "nccl")
    print("backend: nccl")
