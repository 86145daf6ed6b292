"""Command-line wrapper: the training loop lives in the package."""

from mypkg.training.loop import main as run_training
from mypkg.training.utils import parse_overrides

if __name__ == "__main__":
    run_training(parse_overrides())
