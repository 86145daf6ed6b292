from torchcodec.decoders import VideoDecoder


def open_video(path, device):
    fast = VideoDecoder(path, device="cuda")
    chosen = VideoDecoder(path, device=device)
    return fast, chosen
