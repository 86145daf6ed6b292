"""Serve a trained policy over websockets (fixture)."""

import argparse

import torch

from DiT4DiT.model.framework import build_framework


def main(args):
    vla = build_framework(torch.load(args.ckpt_path, map_location="cpu"))
    vla = vla.to("npu").eval()
    return vla


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt_path", type=str, required=True)
    parser.add_argument("--port", type=int, default=5694)
    main(parser.parse_args())
