import torch


@torch.npu.amp.custom_fwd(cast_inputs=torch.float32)
def forward(ctx, x):
    return x


def setup(local_rank, seed):
    torch.npu.set_device(local_rank)
    torch.npu.manual_seed_all(seed)
    if torch.npu.is_available() and torch.npu.is_bf16_supported():
        torch.npu.empty_cache()
    stream: torch.npu.Stream = torch.npu.Stream()
    with torch.npu.stream(stream):
        stream.wait_stream(torch.npu.current_stream())
    torch.npu.synchronize()
    return torch.npu.max_memory_allocated() / 2**30
