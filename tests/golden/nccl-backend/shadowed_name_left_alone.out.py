def init(dist, lib):
    dist.init_process_group(lib, "nccl")
    dist.new_group(None, None, "nccl")
