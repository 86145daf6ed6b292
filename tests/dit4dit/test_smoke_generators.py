"""The generated pipeline and dataset load with the real libraries and have the right shape."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from target_dit4dit.smoke.dataset import (
    CAMERAS,
    STATE_ACTION_DIM,
    TinyDatasetSpec,
    write_tiny_dataset,
)
from target_dit4dit.smoke.pipeline import TinyCosmosSpec, write_tiny_pipeline

pytestmark = pytest.mark.smoke_deps


class _NoSafetyChecker:
    """What DiT4DiT passes instead of the gated Cosmos guardrail."""

    def to(self, device: object) -> _NoSafetyChecker:
        return self


@pytest.fixture(scope="module")
def pipeline_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("diffusers")
    return write_tiny_pipeline(tmp_path_factory.mktemp("cosmos") / "pipeline")


@pytest.fixture(scope="module")
def loaded(pipeline_dir: Path) -> Any:
    import torch
    from diffusers import Cosmos2_5_PredictBasePipeline

    return Cosmos2_5_PredictBasePipeline.from_pretrained(
        str(pipeline_dir),
        torch_dtype=torch.float32,
        local_files_only=True,
        safety_checker=_NoSafetyChecker(),
    )


def test_index_lists_the_five_components_and_no_guardrail(pipeline_dir: Path) -> None:
    index = json.loads((pipeline_dir / "model_index.json").read_text())
    assert index["_class_name"] == "Cosmos2_5_PredictBasePipeline"
    assert index["safety_checker"] == [None, None]
    assert index["text_encoder"] == ["transformers", "Qwen2_5_VLForConditionalGeneration"]
    assert index["transformer"] == ["diffusers", "CosmosTransformer3DModel"]
    assert index["vae"] == ["diffusers", "AutoencoderKLWan"]
    assert index["scheduler"] == ["diffusers", "UniPCMultistepScheduler"]


def test_pipeline_loads_offline_with_what_the_backbone_reads(loaded: Any) -> None:
    pipe = loaded
    assert tuple(pipe.latents_mean.shape) == (1, 16, 1, 1, 1)
    assert (pipe.vae_scale_factor_temporal, pipe.vae_scale_factor_spatial) == (4, 8)
    scheduler = pipe.scheduler.config
    assert (scheduler.prediction_type, scheduler.use_flow_sigmas) == ("flow_prediction", True)
    total = sum(p.numel() for p in pipe.transformer.parameters())
    assert total < 200_000


def test_chat_template_wraps_turns_and_pads(loaded: Any) -> None:
    tokenizer = loaded.tokenizer
    conversation = [
        {"role": "system", "content": [{"type": "text", "text": "be brief"}]},
        {"role": "user", "content": [{"type": "text", "text": "adjust the bottle"}]},
    ]
    ids = tokenizer.apply_chat_template(
        conversation,
        tokenize=True,
        add_generation_prompt=False,
        add_vision_id=False,
        max_length=64,
        truncation=True,
        padding="max_length",
    )
    assert len(ids) == 64
    text = tokenizer.decode(ids)
    assert text.startswith(
        "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nadjust the bottle<|im_end|>\n"
    )
    assert text.endswith("<|endoftext|>")


def test_text_layers_feed_the_transformer_cross_attention(loaded: Any) -> None:
    """The backbone concatenates every text layer; the transformer projects exactly that width."""
    import torch

    spec = TinyCosmosSpec()
    pipe = loaded
    ids = torch.arange(12).unsqueeze(0)
    hidden = pipe.text_encoder(ids, output_hidden_states=True).hidden_states
    prompt = torch.cat(hidden[1:], dim=-1)
    assert prompt.shape == (1, 12, spec.prompt_channels)
    latents = torch.randn(1, 16, 2, 8, 8)
    out = pipe.transformer(
        hidden_states=latents,
        timestep=torch.full((1, 1, 2, 1, 1), 0.5),
        encoder_hidden_states=prompt,
        condition_mask=torch.zeros(1, 1, 2, 8, 8),
        padding_mask=torch.zeros(1, 1, 64, 64),
        return_dict=False,
    )[0]
    assert out.shape == latents.shape
    assert bool(torch.isfinite(out).all())


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("cv2")
    pytest.importorskip("pyarrow")
    return write_tiny_dataset(tmp_path_factory.mktemp("lerobot"), TinyDatasetSpec()).path


def test_dataset_meta_describes_the_files(dataset: Path) -> None:
    info = json.loads((dataset / "meta/info.json").read_text())
    assert info["codebase_version"] == "v2.0"
    assert (info["total_episodes"], info["total_frames"]) == (2, 48)
    episodes = [
        json.loads(line) for line in (dataset / "meta/episodes.jsonl").read_text().splitlines()
    ]
    assert [(e["episode_index"], e["length"]) for e in episodes] == [(0, 24), (1, 24)]
    modality = json.loads((dataset / "meta/modality.json").read_text())
    spans = sorted((v["start"], v["end"]) for v in modality["action"].values())
    assert spans == [(0, 6), (6, 7), (7, 13), (13, 14)]
    assert set(modality["video"]) == set(CAMERAS)


def test_parquet_has_fourteen_dim_vectors_and_binary_grippers(dataset: Path) -> None:
    import numpy as np
    import pandas as pd

    frame = pd.read_parquet(dataset / "data/chunk-000/episode_000001.parquet")
    assert len(frame) == 24
    action = np.stack(frame["action"].to_numpy())
    assert action.shape == (24, STATE_ACTION_DIM)
    assert set(np.unique(action[:, [6, 13]])) <= {0.0, 1.0}
    assert frame["timestamp"].iloc[-1] == pytest.approx(23 / 15)
    assert (frame["episode_index"] == 1).all()
    assert frame["index"].iloc[0] == 24


def test_statistics_match_the_data(dataset: Path) -> None:
    import numpy as np
    import pandas as pd

    stats = json.loads((dataset / "meta/stats_gr00t.json").read_text())
    frames = [pd.read_parquet(p) for p in sorted(dataset.glob("data/*/*.parquet"))]
    state = np.concatenate([np.stack(f["observation.state"].to_numpy()) for f in frames])
    assert np.allclose(stats["observation.state"]["max"], state.max(axis=0))
    assert np.allclose(stats["observation.state"]["mean"], state.mean(axis=0), atol=1e-6)
    assert set(stats["action"]) == {"mean", "std", "min", "max", "q01", "q99"}


def test_every_camera_video_has_every_frame(dataset: Path) -> None:
    import cv2

    for camera in CAMERAS:
        path = dataset / f"videos/chunk-000/observation.images.{camera}/episode_000000.mp4"
        capture = cv2.VideoCapture(str(path))
        assert capture.isOpened()
        assert int(capture.get(cv2.CAP_PROP_FRAME_COUNT)) == 24
        ok, frame = capture.read()
        capture.release()
        assert ok
        assert frame.shape == (48, 64, 3)


@pytest.mark.skipif(
    not os.environ.get("DIT4DIT_CHECKOUT"), reason="set DIT4DIT_CHECKOUT to a DiT4DiT checkout"
)
def test_dit4dit_loader_reads_the_dataset(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DiT4DiT's own loader yields 16-step, 14-dim samples with 5 side-by-side frames."""
    from omegaconf import OmegaConf

    from target_dit4dit.smoke.torchvision_guard import ensure_torchvision_importable

    ensure_torchvision_importable()
    monkeypatch.syspath_prepend(os.environ["DIT4DIT_CHECKOUT"])
    from DiT4DiT.dataloader.lerobot_datasets import get_vla_dataset

    config = OmegaConf.create(
        {
            "data_root_dir": str(dataset.parent),
            "data_mix": "robotwin_task1",
            "video_backend": "opencv",
            "video_delta_indices": [0, 1, 2, 3, 4],
            "max_state_dim": STATE_ACTION_DIM,
            "max_action_dim": STATE_ACTION_DIM,
        }
    )
    sample = get_vla_dataset(data_cfg=config)[0]
    assert sample["action"].shape == (16, STATE_ACTION_DIM)
    assert sample["action_mask"].all()
    assert len(sample["image"]) == 5
    assert tuple(sample["image"][0].shape) == (3, 224, 3 * 224)
    assert sample["lang"] == TinyDatasetSpec().task
