"""``benchmarking/seed_bm25.py``, the seed paper's Rust ``Index`` for ``selector_throughput.py`` (whose smoke test
compiles and times one): the seed's code cut from its text, and the input files both sides read."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarking import seed_bm25
from tests.benchmarks.seed_text import SEED


def test_the_seed_code_is_cut_between_its_first_use_and_its_main(tmp_path: Path) -> None:
    (tmp_path / "seed.txt").write_text(SEED)
    code = seed_bm25.seed_source(tmp_path / "seed.txt")
    assert code.startswith("use std::collections::HashMap;") and "pub fn select" in code and "fn main" not in code
    (tmp_path / "other.txt").write_text("use std::collections::HashMap;\npub struct Tool {}\nfn main() {}\n")
    with pytest.raises(ValueError, match="no `Index` with `select`"):
        seed_bm25.seed_source(tmp_path / "other.txt")


def test_the_inputs_give_the_seed_the_release_token_costs(tmp_path: Path) -> None:
    tools = [{"name": "send\tmail", "description": "Send an email.\nFast.", "permission": "mail.send",
              "prompt_tokens": 20, "core": False}]  # fmt: skip
    tools_file, queries_file = seed_bm25.write_inputs(tmp_path, tools, ["mail my\tboss", "weather"])
    name, description, permission, schema, core = tools_file.read_text().rstrip("\n").split("\t")
    assert (name, description, permission, core) == ("send mail", "Send an email. Fast.", "mail.send", "0")
    # the seed's estimate, (name + description + schema bytes) / 4 + 1, is the release's prompt_tokens
    assert (len(name) + len(description) + int(schema)) // 4 + 1 == 20
    assert queries_file.read_text() == "mail my boss\nweather\n"
