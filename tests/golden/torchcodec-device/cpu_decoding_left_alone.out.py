from torchcodec.decoders import VideoDecoder


def open_video(path):
    plain = VideoDecoder(path)
    cpu = VideoDecoder(path, device="cpu")
    return plain[0].to("cuda"), cpu
