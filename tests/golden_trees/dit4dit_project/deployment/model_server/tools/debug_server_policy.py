"""Check that a checkpoint loads and answers one request (fixture)."""

import argparse

import torch


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="npu", choices=["npu", "cpu"], help="initialize device")
    ap.add_argument("--test", choices=["init", "infer"], default="infer")
    return ap.parse_args()


if __name__ == "__main__":
    args = parse_args()
    print(torch.zeros(1, device=args.device))
