import argparse

import click


def parse():
    parser = argparse.ArgumentParser(description="Run on cuda or cpu")
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"], help="cuda or cpu")
    parser.add_argument("--eval-device", type=str, default="cuda:0")
    parser.add_argument("--mode", default="cuda", choices=["cuda", "cpu"])
    parser.set_defaults(device="cuda")
    return parser.parse_args()


@click.command()
@click.option("--device", default="cuda", type=click.Choice(["cuda", "cpu"]), help="cuda or cpu")
def main(device):
    return device
