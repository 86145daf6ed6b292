from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=8, num_workers=8, pin_memory=True)
dali = None
print("nvidia.dali not installed")
