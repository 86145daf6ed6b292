"""decord, which has no aarch64 wheel."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class DecordImport(UnsupportedConstruct):
    """Report imports of decord: `import decord`, `from decord import VideoReader, cpu`.

    What it reports: each import statement of `decord`, by module name, once. Calls are
    NPU005's (decord-video-reader), which makes their CPU context explicit; optional imports
    (`try: import decord except ImportError`) are not reported: the code already has
    another decoder.

    Why: Ascend servers (Atlas 800T A2/A3) are aarch64 machines, and decord publishes no
    aarch64 wheel on PyPI, so `pip install decord` fails there (DiT4DiT's requirements pin
    it, for instance).

    Example: `from decord import VideoReader, cpu` is reported; `import cv2` is not.

    Safety: reports only. Build decord from source on the host (it needs FFmpeg's
    development libraries), or decode with OpenCV (`cv2.VideoCapture`), PyAV or
    torchcodec on the CPU; frame indexing and colour order (OpenCV reads BGR) differ.

    Caveats: on an x86-64 Ascend host the wheel exists and the warning is moot
    (`--ignore NPU074`).
    """

    code = "NPU074"
    action = "dependencies"
    name = "decord-import"
    summary = "Report decord imports: no aarch64 wheel (build it, or decode with OpenCV/PyAV)."
    trigger = Trigger(tokens=("decord",))
    modules = ("decord",)
    message = "decord has no aarch64 wheel, and {DEVICE} hosts are aarch64"
    suggestion = (
        "build decord from source on the host, or decode on the CPU with OpenCV "
        "(cv2.VideoCapture; BGR frames), PyAV or torchcodec"
    )
    examples = (
        reported("from decord import VideoReader, cpu\n"),
        Example("import cv2\ncap = cv2.VideoCapture(path)\n"),
    )
