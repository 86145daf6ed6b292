"""NVIDIA DALI data pipelines."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class NvidiaDali(UnsupportedConstruct):
    """Report NVIDIA DALI: imports of `nvidia.dali` and every call into it
    (`@pipeline_def`, `fn.readers.video(...)`, `fn.decoders.image(..., device="mixed")`,
    `DALIGenericIterator(...)`).

    What it reports: the imports and each call or decorator through them, by qualified
    name. Optional imports are not reported; calls through the names they bind are.

    Why: DALI decodes and augments on NVIDIA GPUs (its CPU operators exist, but its wheels
    are built against CUDA, `nvidia-dali-cuda120`, and its video readers need NVDEC); an
    Ascend host has neither.

    Example: `from nvidia.dali import pipeline_def, fn` and `fn.readers.video(...)` give
    two warnings.

    Safety: reports only. Replace the pipeline with a torch `DataLoader` whose workers
    decode on the CPU (torchvision / OpenCV / PyAV, torchvision.transforms.v2 for the
    augmentations) and move batches to the NPU; keep `pin_memory` and `num_workers` high.

    Caveats: DALI's per-sample randomness and output layout (`NCHW` vs `NHWC`) have to be
    reproduced by hand.
    """

    code = "NPU076"
    action = "replace-library"
    name = "nvidia-dali"
    summary = "Report NVIDIA DALI pipelines: GPU decoding/augmentation (use a CPU DataLoader)."
    trigger = Trigger(tokens=("nvidia.dali", "dali"))
    modules = ("nvidia.dali",)
    uses = ("nvidia.dali",)
    message = "DALI pipelines decode and augment on NVIDIA GPUs, absent on {DEVICE} hosts"
    suggestion = (
        "use a torch DataLoader whose workers decode on the CPU (torchvision, OpenCV, PyAV) "
        "and move batches to the {DEVICE}"
    )
    examples = (
        reported("from nvidia.dali import fn, pipeline_def\n"),
        Example(
            "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=8)\n"
        ),
    )
