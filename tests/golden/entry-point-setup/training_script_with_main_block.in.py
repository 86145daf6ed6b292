#!/usr/bin/env python
"""Train the policy with accelerate."""

from __future__ import annotations

import argparse

from accelerate import Accelerator

# Built at import time, before the main block runs.
accelerator = Accelerator()


def main(args):
    model, optimizer, loader = accelerator.prepare(*build(args))
    for batch in loader:
        loss = model(batch)
        accelerator.backward(loss)
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    main(parser.parse_args())
