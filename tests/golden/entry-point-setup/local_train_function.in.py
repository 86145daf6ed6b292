import argparse

from pkg import engine


def train(args):
    engine.loop(args)


if __name__ == "__main__":
    train(argparse.ArgumentParser().parse_args())
