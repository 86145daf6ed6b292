import numpy as np


class Metrics:
    def mean(self, values):
        return values.double().mean()

    def cpu_mean(self, values):
        return values.cpu().double().mean()


class Loader:
    def poses(self, path):
        return np.load(path).astype(np.float64)
