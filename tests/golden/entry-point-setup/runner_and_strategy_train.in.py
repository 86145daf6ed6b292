from pkg.runners import get_runner_class
from pkg.strategies import build_strategy


def run(cfg):
    runner = get_runner_class(cfg)(cfg)
    runner.train()
    strategy = build_strategy(cfg)
    strategy.run_training(runner.model)


if __name__ == "__main__":
    run({})
