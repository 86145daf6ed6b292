"""A tiny random Cosmos-Predict2.5 pipeline in diffusers format, built offline.

DiT4DiT's backbone (``Cosmos25.py``) loads ``Cosmos2_5_PredictBasePipeline.from_pretrained``
from a local folder and keeps five components: a Qwen2.5-VL text encoder, its tokenizer, a
``CosmosTransformer3DModel``, a Wan2.1 VAE and a ``UniPCMultistepScheduler`` with flow sigmas.
The real checkpoint is 2B parameters behind a hub login; this module writes a folder with the
same layout and the same classes, shrunk to a few hundred thousand random parameters, so that
the real loading code and the real training loop run on a 2-core CPU in seconds.

The shape relations copy those of the real checkpoint: the backbone concatenates every text
encoder layer's hidden states (``layers x hidden`` channels, 28 x 3584 = 100352 for
Cosmos-Reason1-7B), and the transformer projects them with ``crossattn_proj`` first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from target_dit4dit.smoke.torchvision_guard import ensure_torchvision_importable

# The Qwen2-VL family wraps each turn in these markers; the rest of the vocabulary is the 256
# byte-level symbols, so any prompt tokenizes without an unknown token.
_SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

# A Qwen-style chat template reduced to what the backbone sends: turns whose content is a
# string or a list of ``{"type": "text"}`` parts. Extra template variables such as
# ``add_vision_id`` are accepted and ignored, as in the real template when no image is sent.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "<|im_start|>{{ message['role'] + '\\n' }}"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'text' -%}{{ part['text'] }}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "<|im_end|>{{ '\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>{{ 'assistant\\n' }}{%- endif -%}"
)

PIPELINE_CLASS = "Cosmos2_5_PredictBasePipeline"


@dataclass(frozen=True)
class TinyCosmosSpec:
    """Sizes of the tiny pipeline; the config writer reads the derived dimensions from here."""

    text_hidden: int = 16
    text_layers: int = 2
    text_heads: int = 2
    vision_hidden: int = 16
    vision_depth: int = 2
    heads: int = 2
    head_dim: int = 16
    layers: int = 2
    vae_base_dim: int = 3
    latent_channels: int = 16
    # Latent (T, H, W) the learnable position embedding covers: 224 x 672 frames (one head
    # camera beside two wrist cameras, each resized to 224) give 28 x 84 latents.
    max_latent_size: tuple[int, int, int] = (8, 32, 96)
    seed: int = 0

    @property
    def transformer_hidden(self) -> int:
        """Width of the transformer blocks: what DiT4DiT hooks and feeds the action head."""
        return self.heads * self.head_dim

    @property
    def prompt_channels(self) -> int:
        """Channels of the concatenated per-layer text hidden states."""
        return self.text_layers * self.text_hidden

    @property
    def vocab_size(self) -> int:
        return 256 + len(_SPECIAL_TOKENS)


def build_tokenizer() -> Any:
    """A byte-level ``PreTrainedTokenizerFast`` with no merges and a chat template."""
    ensure_torchvision_importable()
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {symbol: index for index, symbol in enumerate(alphabet)}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens(list(_SPECIAL_TOKENS))
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        model_max_length=32768,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def _text_encoder(spec: TinyCosmosSpec, tokenizer: Any) -> Any:
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

    half = spec.text_hidden // spec.text_heads // 2
    quarter = half // 4
    config = Qwen2_5_VLConfig(
        text_config={
            "vocab_size": spec.vocab_size,
            "hidden_size": spec.text_hidden,
            "intermediate_size": 2 * spec.text_hidden,
            "num_hidden_layers": spec.text_layers,
            "num_attention_heads": spec.text_heads,
            "num_key_value_heads": spec.text_heads,
            "max_position_embeddings": 4096,
            # Multimodal RoPE splits head_dim / 2 frequencies over (t, h, w).
            "rope_scaling": {
                "type": "mrope",
                "mrope_section": [half - 2 * quarter, quarter, quarter],
            },
            "rope_theta": 1_000_000.0,
            "tie_word_embeddings": True,
        },
        vision_config={
            "depth": spec.vision_depth,
            "hidden_size": spec.vision_hidden,
            "intermediate_size": 2 * spec.vision_hidden,
            "num_heads": 2,
            "out_hidden_size": spec.text_hidden,
            "fullatt_block_indexes": [spec.vision_depth - 1],
        },
        image_token_id=tokenizer.convert_tokens_to_ids("<|image_pad|>"),
        video_token_id=tokenizer.convert_tokens_to_ids("<|video_pad|>"),
        vision_start_token_id=tokenizer.convert_tokens_to_ids("<|vision_start|>"),
        vision_end_token_id=tokenizer.convert_tokens_to_ids("<|vision_end|>"),
        bos_token_id=tokenizer.convert_tokens_to_ids("<|endoftext|>"),
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return Qwen2_5_VLForConditionalGeneration(config)


def _transformer(spec: TinyCosmosSpec) -> Any:
    from diffusers import CosmosTransformer3DModel

    return CosmosTransformer3DModel(
        in_channels=spec.latent_channels + 1,
        out_channels=spec.latent_channels,
        num_attention_heads=spec.heads,
        attention_head_dim=spec.head_dim,
        num_layers=spec.layers,
        mlp_ratio=2.0,
        text_embed_dim=spec.transformer_hidden,
        adaln_lora_dim=4,
        max_size=spec.max_latent_size,
        patch_size=(1, 2, 2),
        rope_scale=(1.0, 3.0, 3.0),
        concat_padding_mask=True,
        extra_pos_embed_type="learnable",
        use_crossattn_projection=True,
        crossattn_proj_in_channels=spec.prompt_channels,
        encoder_hidden_states_channels=spec.transformer_hidden,
    )


def _vae(spec: TinyCosmosSpec) -> Any:
    from diffusers import AutoencoderKLWan

    # Default latents_mean/std (16 channels) are the Wan2.1 ones the real checkpoint ships.
    return AutoencoderKLWan(
        base_dim=spec.vae_base_dim,
        z_dim=spec.latent_channels,
        dim_mult=[1, 1, 1, 1],
        num_res_blocks=1,
        temperal_downsample=[False, True, True],
    )


def _scheduler() -> Any:
    from diffusers import UniPCMultistepScheduler

    return UniPCMultistepScheduler(
        prediction_type="flow_prediction",
        use_flow_sigmas=True,
        flow_shift=1.0,
        solver_order=2,
        final_sigmas_type="zero",
    )


def write_tiny_pipeline(dest: Path, spec: TinyCosmosSpec | None = None) -> Path:
    """Write a loadable ``Cosmos2_5_PredictBasePipeline`` folder at ``dest`` and return it.

    Components are saved one by one and ``model_index.json`` is written by hand, because
    ``DiffusionPipeline.save_pretrained`` would need the real Cosmos guardrail (a separate,
    gated package) as the safety checker. DiT4DiT passes its own dummy checker when loading,
    which is why the index lists ``safety_checker`` as absent.
    """
    ensure_torchvision_importable()
    import diffusers
    import torch

    spec = spec or TinyCosmosSpec()
    dest.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(spec.seed)
    tokenizer = build_tokenizer()
    components: dict[str, Any] = {
        "text_encoder": _text_encoder(spec, tokenizer),
        "tokenizer": tokenizer,
        "transformer": _transformer(spec),
        "vae": _vae(spec),
        "scheduler": _scheduler(),
    }
    index: dict[str, Any] = {
        "_class_name": PIPELINE_CLASS,
        "_diffusers_version": diffusers.__version__,
    }
    for name, component in components.items():
        component.save_pretrained(dest / name)
        library = type(component).__module__.split(".")[0]
        index[name] = [library, type(component).__name__]
    index["safety_checker"] = [None, None]
    (dest / "model_index.json").write_text(json.dumps(index, indent=2, sort_keys=True) + "\n")
    return dest
