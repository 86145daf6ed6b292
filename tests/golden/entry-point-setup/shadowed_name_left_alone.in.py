"""A local class that happens to be called Accelerator."""


class Accelerator:
    def prepare(self, *things):
        return things


class Optimizer:
    def step(self):
        return None


if __name__ == "__main__":
    Accelerator().prepare(1, 2)
