import argparse

import click


def parse():
    parser = argparse.ArgumentParser(description="Run on cuda or cpu")
    parser.add_argument("--device", default="npu", choices=["npu", "cpu"], help="cuda or cpu")
    parser.add_argument("--eval-device", type=str, default="npu:0")
    parser.add_argument("--mode", default="cuda", choices=["cuda", "cpu"])
    parser.set_defaults(device="npu")
    return parser.parse_args()


@click.command()
@click.option("--device", default="npu", type=click.Choice(["npu", "cpu"]), help="cuda or cpu")
def main(device):
    return device
