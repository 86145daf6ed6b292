from torch.backends import cudnn

cudnn.allow_tf32 = True
