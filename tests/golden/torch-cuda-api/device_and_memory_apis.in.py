import torch


@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
def forward(ctx, x):
    return x


def setup(local_rank, seed):
    torch.cuda.set_device(local_rank)
    torch.cuda.manual_seed_all(seed)
    if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
        torch.cuda.empty_cache()
    stream: torch.cuda.Stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        stream.wait_stream(torch.cuda.current_stream())
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() / 2**30
