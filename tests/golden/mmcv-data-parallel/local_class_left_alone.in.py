class MMDataParallel:
    def __init__(self, module):
        self.module = module


model = MMDataParallel(object())
