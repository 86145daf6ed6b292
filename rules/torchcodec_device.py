"""torchcodec decoding on a GPU."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported

_DECODERS = ("torchcodec.decoders.VideoDecoder", "torchcodec.decoders.AudioDecoder")


class TorchcodecDevice(UnsupportedConstruct):
    """Report torchcodec decoders created for a device other than the CPU:
    `VideoDecoder(path, device="cuda")`, `VideoDecoder(path, device=device)`.

    What it reports: each `torchcodec.decoders.VideoDecoder(...)` call (aliases included)
    whose `device=` is not "cpu": a "cuda"/"npu" string or a variable. Decoders without
    `device=` decode on the CPU and are left alone.

    Why: torchcodec decodes on the CPU or, through NVDEC, on NVIDIA GPUs; it has no NPU
    decoding, so `device="cuda"` fails on an Ascend host, and so does `device="npu"`,
    which NPU010 writes for a `device=` keyword.

    Example: `VideoDecoder(path, device="cuda")` is reported; `VideoDecoder(path)` is not.

    Safety: reports only. Decode on the CPU (drop `device=`, or `device="cpu"`) and move
    the frames: `decoder[i].to("npu")` or the batch after the DataLoader.

    Caveats: a `device` variable that is "cpu" at run time is reported too.
    """

    code = "NPU075"
    action = "port-code"
    name = "torchcodec-device"
    summary = "Report torchcodec decoders on a GPU (device=...): it decodes on CPU or NVDEC only."
    trigger = Trigger(tokens=("torchcodec", "VideoDecoder"), local=True)
    uses = _DECODERS
    message = "torchcodec decodes on the CPU or on NVIDIA GPUs (NVDEC), not on the {DEVICE}"
    suggestion = (
        'decode on the CPU (no device= or device="cpu") and move the frames with .to("{device}")'
    )
    examples = (
        reported(
            "from torchcodec.decoders import VideoDecoder\n"
            'decoder = VideoDecoder(path, device="cuda")\n'
        ),
        Example("from torchcodec.decoders import VideoDecoder\ndecoder = VideoDecoder(path)\n"),
    )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        device = find_arg(call, None, "device") if call is not None else None
        if device is None or string_value(device.value) == "cpu":
            return None
        return super().describe(name, call)
