import numpy as np


def run(x):
    print("cupy is optional; numpy is used")
    return np.asarray(x)
