"""Count episodes in a dataset folder."""

import json
import sys


def count(path):
    with open(path) as handle:
        return sum(1 for _ in map(json.loads, handle))


if __name__ == "__main__":
    print(count(sys.argv[1]))
