import torch.backends.cudnn as cudnn_backend
from torch.backends import cudnn

cudnn.benchmark = False
cudnn_backend.deterministic = True
