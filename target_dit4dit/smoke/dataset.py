"""A tiny LeRobot v2.0 dataset shaped like DiT4DiT's RoboTwin (Agilex, dual-arm) data.

DiT4DiT's loader (``dataloader/gr00t_lerobot``) reads, for every dataset of a named mixture,
``<data_root_dir>/<dataset name>/`` with ``meta/info.json`` (paths, video features),
``meta/modality.json`` (how the 14-dim state/action vectors split into per-arm keys, which
camera is which, where the task text lives), ``meta/episodes.jsonl``, ``meta/tasks.jsonl``,
one parquet per episode and one mp4 per camera and episode. The ``robotwin`` data config asks
for three cameras (``cam_high`` and two wrists), 14-dim joints plus grippers, and 16-step
action chunks; the mixture ``robotwin_task1`` holds one dataset, ``adjust_bottle``.

The statistics file ``meta/stats_gr00t.json`` is written too, in the loader's own format.
Without it every rank computes and writes it at start-up, and a rank reading the file while
another writes it fails; shipping it keeps multi-process smoke runs deterministic.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MIXTURE = "robotwin_task1"
DATASET_NAME = "adjust_bottle"
CAMERAS = ("cam_high", "cam_left_wrist", "cam_right_wrist")
# Agilex/ALOHA layout of the 14-dim vectors, as (key, start, end).
ARM_LAYOUT = (
    ("left_joints", 0, 6),
    ("left_gripper", 6, 7),
    ("right_joints", 7, 13),
    ("right_gripper", 13, 14),
)
STATE_ACTION_DIM = 14
TASK_KEY = "human.action.task_description"
DATA_PATH = "data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet"
VIDEO_PATH = "videos/chunk-{episode_chunk:03d}/{video_key}/episode_{episode_index:06d}.mp4"
CHUNKS_SIZE = 1000


@dataclass(frozen=True)
class TinyDatasetSpec:
    """Size of the generated dataset."""

    episodes: int = 2
    frames: int = 24
    fps: int = 15
    height: int = 48
    width: int = 64
    name: str = DATASET_NAME
    task: str = "adjust the bottle upright"
    seed: int = 0


@dataclass(frozen=True)
class TinyDataset:
    """Where the dataset was written and what the config writer needs to know about it."""

    root: Path
    path: Path
    mixture: str
    episodes: int
    frames: int


def _video_feature(spec: TinyDatasetSpec) -> dict[str, Any]:
    return {
        "dtype": "video",
        "shape": [spec.height, spec.width, 3],
        "names": ["height", "width", "channel"],
        "video_info": {
            "video.fps": float(spec.fps),
            "video.codec": "mp4v",
            "video.pix_fmt": "yuv420p",
            "video.is_depth_map": False,
            "has_audio": False,
        },
    }


def _vector_feature() -> dict[str, Any]:
    names = [f"{key}_{i}" for key, start, end in ARM_LAYOUT for i in range(end - start)]
    return {"dtype": "float32", "shape": [STATE_ACTION_DIM], "names": names}


def info_json(spec: TinyDatasetSpec) -> dict[str, Any]:
    """``meta/info.json`` in the LeRobot v2.0 layout."""
    scalar = {"shape": [1], "names": None}
    features: dict[str, Any] = {
        f"observation.images.{camera}": _video_feature(spec) for camera in CAMERAS
    }
    features["observation.state"] = _vector_feature()
    features["action"] = _vector_feature()
    features["timestamp"] = {"dtype": "float32", **scalar}
    for column in ("frame_index", "episode_index", "index", "task_index"):
        features[column] = {"dtype": "int64", **scalar}
    return {
        "codebase_version": "v2.0",
        "robot_type": "aloha-agilex",
        "total_episodes": spec.episodes,
        "total_frames": spec.episodes * spec.frames,
        "total_tasks": 1,
        "total_videos": spec.episodes * len(CAMERAS),
        "total_chunks": 1,
        "chunks_size": CHUNKS_SIZE,
        "fps": spec.fps,
        "splits": {"train": f"0:{spec.episodes}"},
        "data_path": DATA_PATH,
        "video_path": VIDEO_PATH,
        "features": features,
    }


def modality_json() -> dict[str, Any]:
    """``meta/modality.json``: the split of the vectors, the cameras and the task column."""
    split = {key: {"start": start, "end": end} for key, start, end in ARM_LAYOUT}
    return {
        "state": {
            key: {**value, "original_key": "observation.state"} for key, value in split.items()
        },
        "action": {key: {**value, "original_key": "action"} for key, value in split.items()},
        "video": {camera: {"original_key": f"observation.images.{camera}"} for camera in CAMERAS},
        "annotation": {TASK_KEY: {"original_key": "task_index"}},
    }


def _trajectory(rng: Any, frames: int) -> Any:
    """Smooth joint paths in [-1, 1] with grippers that open and close (0/1)."""
    import numpy as np

    t = np.linspace(0.0, 1.0, frames, dtype=np.float32)[:, None]
    phase = rng.uniform(0.0, 2.0 * np.pi, size=(1, STATE_ACTION_DIM)).astype(np.float32)
    values = np.sin(2.0 * np.pi * t + phase).astype(np.float32)
    for key, start, _ in ARM_LAYOUT:
        if key.endswith("gripper"):
            values[:, start] = (values[:, start] > 0).astype(np.float32)
    return values


def _write_episode_parquet(path: Path, episode: int, spec: TinyDatasetSpec, rng: Any) -> Any:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    state = _trajectory(rng, spec.frames)
    # The action at step i is the state the robot reaches at step i + 1.
    action = np.concatenate([state[1:], state[-1:]], axis=0)
    vector = pa.list_(pa.float32(), STATE_ACTION_DIM)
    frame_index = np.arange(spec.frames, dtype=np.int64)
    table = pa.table(
        {
            "observation.state": pa.array(list(state), type=vector),
            "action": pa.array(list(action), type=vector),
            "timestamp": pa.array(frame_index.astype(np.float32) / spec.fps, type=pa.float32()),
            "frame_index": pa.array(frame_index),
            "episode_index": pa.array(np.full(spec.frames, episode, dtype=np.int64)),
            "index": pa.array(frame_index + episode * spec.frames),
            "task_index": pa.array(np.zeros(spec.frames, dtype=np.int64)),
        }
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return table


def _write_video(path: Path, spec: TinyDatasetSpec, camera_index: int, episode: int) -> None:
    import cv2
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(
        str(path), cv2.VideoWriter.fourcc(*"mp4v"), float(spec.fps), (spec.width, spec.height)
    )
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV cannot write mp4v video to {path}")
    ys, xs = np.mgrid[0 : spec.height, 0 : spec.width]
    for frame in range(spec.frames):
        # A moving gradient per camera, so consecutive frames differ as real video does.
        base = (xs + ys + 4 * frame + 40 * camera_index + 17 * episode) % 256
        image = np.stack([base, (base + 85) % 256, (base + 170) % 256], axis=-1)
        writer.write(image.astype(np.uint8))
    writer.release()


def _statistics(tables: list[Any]) -> dict[str, dict[str, list[float]]]:
    """Per-column statistics in the format DiT4DiT's loader computes and caches itself."""
    import numpy as np

    stats: dict[str, dict[str, list[float]]] = {}
    for column in tables[0].column_names:
        values = np.vstack(
            [
                np.asarray(row, dtype=np.float32).reshape(-1)
                for t in tables
                for row in t[column].to_pylist()
            ]
        )
        stats[column] = {
            "mean": np.mean(values, axis=0).tolist(),
            "std": np.std(values, axis=0).tolist(),
            "min": np.min(values, axis=0).tolist(),
            "max": np.max(values, axis=0).tolist(),
            "q01": np.quantile(values, 0.01, axis=0).tolist(),
            "q99": np.quantile(values, 0.99, axis=0).tolist(),
        }
    return stats


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def write_tiny_dataset(root: Path, spec: TinyDatasetSpec | None = None) -> TinyDataset:
    """Write ``root/<spec.name>`` as a LeRobot v2.0 dataset and describe it."""
    import numpy as np

    spec = spec or TinyDatasetSpec()
    path = root / spec.name
    meta = path / "meta"
    meta.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(spec.seed)
    tables = []
    for episode in range(spec.episodes):
        chunk = episode // CHUNKS_SIZE
        parquet = path / DATA_PATH.format(episode_chunk=chunk, episode_index=episode)
        tables.append(_write_episode_parquet(parquet, episode, spec, rng))
        for camera_index, camera in enumerate(CAMERAS):
            video = path / VIDEO_PATH.format(
                episode_chunk=chunk,
                video_key=f"observation.images.{camera}",
                episode_index=episode,
            )
            _write_video(video, spec, camera_index, episode)
    (meta / "info.json").write_text(json.dumps(info_json(spec), indent=2) + "\n")
    (meta / "modality.json").write_text(json.dumps(modality_json(), indent=2) + "\n")
    _write_jsonl(
        meta / "episodes.jsonl",
        [
            {"episode_index": episode, "tasks": [spec.task], "length": spec.frames}
            for episode in range(spec.episodes)
        ],
    )
    _write_jsonl(meta / "tasks.jsonl", [{"task_index": 0, "task": spec.task}])
    (meta / "stats_gr00t.json").write_text(json.dumps(_statistics(tables), indent=2) + "\n")
    return TinyDataset(
        root=root, path=path, mixture=MIXTURE, episodes=spec.episodes, frames=spec.frames
    )
