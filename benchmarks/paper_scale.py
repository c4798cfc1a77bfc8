"""Benchmark: the whole refresh at paper scale on one machine, measured stage by stage, against a stand-in LLM server.

Runs the real pipeline, ``ecoagent run`` and then ``ecoagent rated`` on its release, each a fresh process of this
checkout's CLI, with the production profile's LLM settings (``llm.backend=server``, Gemma 3 1B-it's name, the
instruction prompt, concurrency 32, ``synth.tools=all``, ``queries_per_tool=15``, ``label.max_queries=null``, the LLM
verifier) and the default profile's offline models. The one difference from production is ``llm.base_url``: a stand-in
OpenAI-compatible server on 127.0.0.1 (``ecoagent/testing/standin_llm.py``, its own process) that answers at once,
deterministically, with plausible queries built from each tool's name, description and parameters (with near-duplicates
and junk the filters must drop) and with verification scores, and that fails a share of first attempts with 429/503.

Per stage (``--usage``, :mod:`ecoagent.runtime.usage`): wall time, CPU time, peak RSS (the stage's process, and the
process tree sampled), rows in and out, and for the LLM stages the LLM phase split into waiting on the server and our
own client work. Targets at full scale on 2 cores (issue 14): the pipeline's own work for ``ecoagent run`` (all stages,
LLM waits excluded) <= 60 min; peak RSS <= 8 GB; the release builds, passes its gate and loads with ``datasets``;
``ecoagent rated`` completes with Table 2 simulated on the release's Syn test stream.

Beside the run, the production path where it can be checked here:

- server side: every request answered once (200 answers = new rows in the response cache), every scripted 429/503
  retried, none lost; the requests/s the client sustained in each LLM stage, and a burst of ``--burst`` requests at
  concurrency 32 through :class:`ecoagent.llm.LLMClient` alone;
- the batch backend: ``ecoagent synth`` with ``llm.backend=batch`` on the run's catalog writes the ``vllm run-batch``
  request file (lines, MB), the stand-in answers it as an output file of the same shape, the rerun completes from the
  cache and writes the same queries and pairs as the server run;
- tokens sent and received per tool (generation) and per verification pair, counted with the Gemma 3 tokenizer on the
  chat as Gemma's template lays it out (Gemma 3 1B-it shares the 270M model's tokenizer).

``--scale`` shrinks the LLM work: below 1, ``synth.tools=sample`` with ``sample_size = scale x 69,501 / 15`` (the
paper's Syn queries over 15 queries per tool) and ``label.max_queries = scale x 6,379`` (its Real queries); the crawl
and score stages always run on the whole catalog. CI runs ``--scale 0.01`` on the fixture packages.

    .venv/bin/python benchmarks/paper_scale.py [--scale 1.0] [--work DIR] [--json FILE] [--set key=value ...]
    .venv/bin/python benchmarks/paper_scale.py --synth-again WORK --scale S   # a finished run's synth again (a fix's
                                                                              # before/after, outputs compared)
    .venv/bin/python benchmarks/paper_scale.py --release-again WORK --scale S # the same for the release build
    .venv/bin/python benchmarks/paper_scale.py --burst-only [--burst N]      # the client burst alone
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from ecoagent.layout import CRAWL_FILES, LABEL_FILES, RATED_FILES, RELEASE_FILES, SCORE_FILES, SYNTH_FILES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a file: this checkout's packages

PAPER_SYN_QUERIES = 69_501
PAPER_REAL_QUERIES = 6_379
QUERIES_PER_TOOL = 15
OWN_WORK_TARGET_S = 60 * 60
PEAK_RSS_TARGET_MB = 8 * 1024
RUN_STAGES = ("crawl", "score", "synth", "label", "release")
# RATED's CPU training sees this many Syn train queries (an epoch's share): the encoder and the protocol are the
# same at any share, and a full epoch of ~45,000 queries would take about a day on 2 cores
RATED_TRAIN_QUERIES = 256


def scale_overrides(scale: float) -> list[str]:
    """The synth and label settings for ``scale`` (1 = all tools and every real query)."""
    if scale >= 1:
        return ["synth.tools=all", "label.max_queries=null"]
    tools = max(1, math.ceil(scale * PAPER_SYN_QUERIES / QUERIES_PER_TOOL))
    queries = max(1, math.ceil(scale * PAPER_REAL_QUERIES))
    return ["synth.tools=sample", f"synth.sample_size={tools}", f"label.max_queries={queries}"]


def production_llm_overrides(base_url: str) -> list[str]:
    """The production profile's LLM, synth and label settings; only ``llm.base_url`` points at the stand-in."""
    return [
        "llm.backend=server",
        f"llm.base_url={base_url}",
        "llm.model=google/gemma-3-1b-it",
        "llm.model_kind=instruct",
        "llm.concurrency=32",
        f"synth.queries_per_tool={QUERIES_PER_TOOL}",
        "synth.max_tokens=512",
        "label.verifier=llm",
    ]


# --------------------------------------------------------------------------- processes


class StandIn:
    """The stand-in server in a process of its own (so it never shares a core's GIL with what it serves)."""

    def __init__(self, catalog: Path, failure_share: float, log: Path):
        # run from this checkout's root, so `-m` finds its ecoagent whatever the venv was installed from
        cmd = [sys.executable, "-m", "ecoagent.testing.standin_llm", "--catalog", str(catalog),
               "--failure-share", str(failure_share), "--gemma-tokens"]  # fmt: skip
        self._log = log.open("w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self._log, text=True, cwd=ROOT)
        line = self.proc.stdout.readline().strip() if self.proc.stdout else ""
        if not line.startswith("http://"):
            self.close()
            raise SystemExit(f"the stand-in server did not start; see {log}")
        self.base_url = line

    def stats(self) -> dict:
        with urllib.request.urlopen(self.base_url.removesuffix("/v1") + "/stats", timeout=30) as response:
            return json.loads(response.read())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self._log.close()


def ecoagent(args: list[str], log: Path, ok: tuple[int, ...] = (0,)) -> tuple[int, float]:
    """Run this checkout's CLI (``python -m pipeline.cli``) in a fresh process; (exit code, seconds)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1")}
    started = time.perf_counter()
    with log.open("w") as fh:
        code = subprocess.run([sys.executable, "-m", "pipeline.cli", *args], stdout=fh, stderr=subprocess.STDOUT,
                              cwd=ROOT, env=env).returncode  # fmt: skip
    seconds = time.perf_counter() - started
    if code not in ok:
        tail = "\n".join(log.read_text().splitlines()[-15:])
        raise SystemExit(f"`ecoagent {args[0]}` exited {code} (expected {ok}); {log} ends with:\n{tail}")
    return code, seconds


def set_args(overrides: list[str]) -> list[str]:
    return [arg for item in overrides for arg in ("--set", item)]


# --------------------------------------------------------------------------- what the stages wrote


def _json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def stage_rows(out: Path, release: Path | None) -> dict[str, dict]:
    """Rows in and out of each stage, from the summaries and manifest it wrote."""
    crawl, score = _json(out / "crawl" / CRAWL_FILES.summary), _json(out / "score" / SCORE_FILES.summary)
    synth, label = _json(out / "synth" / SYNTH_FILES.summary), _json(out / "label" / LABEL_FILES.summary)
    pairs = synth.get("pairs", {})
    rows = {
        "crawl": {
            "in": f"{crawl.get('packages', {}).get('total', 0):,} packages",
            "out": f"{crawl.get('tools', 0):,} tools",
        },
        "score": {"in": f"{crawl.get('tools', 0):,} tools", "out": f"{score.get('tools', 0):,} scored"},
        "synth": {
            "in": f"{synth.get('tools_selected', 0):,} tools",
            "out": f"{synth.get('queries_kept', 0):,} queries, {sum(pairs.values()):,} pairs",
        },
        "label": {
            "in": f"{label.get('queries_in', 0):,} queries",
            "out": f"{label.get('queries_kept', 0):,} queries, {label.get('candidates', 0):,} pairs "
            f"({label.get('verified_pairs', 0):,} verified)",
        },
    }
    if release is not None:
        counts = _json(release / RELEASE_FILES.manifest).get("counts", {})
        total = sum(n for config, splits in counts.items() if config != "tools" for n in splits.values())
        queries_in = synth.get("queries_kept", 0) + label.get("queries_kept", 0)
        rows["release"] = {"in": f"{queries_in:,} queries", "out": f"{total:,} rows in {len(counts)} configs"}
    return rows


def cache_rows(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def load_release_with_datasets(folder: Path) -> dict:
    """Every config and split of the release through ``datasets.load_dataset`` (fresh cache), rows vs the manifest."""
    import datasets

    datasets.disable_progress_bars()
    manifest = json.loads((folder / RELEASE_FILES.manifest).read_text())
    started = time.perf_counter()
    mismatches = []
    loaded = 0
    with tempfile.TemporaryDirectory(prefix="ecoagent-paper-scale-datasets-") as cache:
        for config, splits in sorted(manifest["counts"].items()):
            for split, rows in splits.items():
                dataset = datasets.load_dataset(str(folder), config, split=split, cache_dir=cache)
                loaded += 1
                if dataset.num_rows != rows:
                    mismatches.append(f"{config}/{split}: {dataset.num_rows} rows, manifest {rows}")
    return {"splits_loaded": loaded, "mismatches": mismatches, "seconds": round(time.perf_counter() - started, 1)}


# --------------------------------------------------------------------------- the production path


def client_burst(base_url: str, count: int, work: Path) -> dict:
    """``count`` distinct verification-shaped requests at concurrency 32 through the pipeline's client (with its
    response cache), against the stand-in: requests per second, and the client's CPU time per request."""
    from ecoagent.llm import LLMClient, LLMRequest, ResponseCache, sampling

    schema = json.dumps({"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]})
    requests = [
        LLMRequest(key=f"burst-{i}", prompt_version="burst_v1", model="google/gemma-3-1b-it", kind="chat",
                   messages=({"role": "system", "content": "Answer with JSON only."},
                             {"role": "user", "content": f"<query>find invoice {i}</query>\n<tool>billing: search "
                                                         f"invoices by number</tool>"}),
                   sampling=sampling(temperature=0.0, max_tokens=64, seed=1), json_schema=schema)
        for i in range(count)
    ]  # fmt: skip
    cache = ResponseCache(work / "burst.sqlite")
    client = LLMClient(base_url, "google/gemma-3-1b-it", concurrency=32, cache=cache, backoff_s=0.1)
    wall, cpu = time.perf_counter(), time.process_time()
    responses = asyncio.run(client.agenerate(requests))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    cache.close()
    return {
        "requests": count,
        "failed": sum(1 for r in responses if r.error),
        "seconds": round(wall, 2),
        "requests_per_s": round(count / wall, 1),
        "client_cpu_ms_per_request": round(1000 * cpu / count, 2),
    }


def batch_check(out: Path, work: Path, overrides: list[str], catalog: Path) -> dict:
    """The batch backend on the run's catalog: the request file, a stand-in output file, the completed rerun."""
    from ecoagent.testing.standin_llm import PaperScaleResponder, answer_batch_file, gemma_token_counter

    batch_dir, synth_out = work / "batch", work / "batch_synth"
    batch = [*overrides, "llm.backend=batch", f"llm.batch_dir={batch_dir}", f"llm.cache_path={work / 'batch.sqlite'}"]
    args = ["synth", "--in", str(out / "score"), "--out", str(synth_out), *set_args(batch)]
    _, write_s = ecoagent(args, work / "batch_write.log", ok=(1,))  # BatchPending: the request file is written
    requests = batch_dir / "requests.jsonl"
    lines = sum(1 for _ in requests.open())
    started = time.perf_counter()
    answered = answer_batch_file(requests, batch_dir / "output.jsonl", PaperScaleResponder(catalog),
                                 gemma_token_counter())  # fmt: skip
    answer_s = time.perf_counter() - started
    _, complete_s = ecoagent(args, work / "batch_complete.log")
    same = {name: (synth_out / name).read_bytes() == (out / "synth" / name).read_bytes()
            for name in (SYNTH_FILES.queries, SYNTH_FILES.pairs)}  # fmt: skip
    return {
        "request_lines": lines,
        "request_mb": round(requests.stat().st_size / 1e6, 2),
        "output_lines": answered,
        "output_mb": round((batch_dir / "output.jsonl").stat().st_size / 1e6, 2),
        "write_run_s": round(write_s, 1),
        "standin_answer_s": round(answer_s, 1),
        "complete_run_s": round(complete_s, 1),
        "same_outputs_as_server_run": same,
    }


# --------------------------------------------------------------------------- a stage again, for before/after


def catalog_only_embedding_cache(source: Path, catalog: Path, target: Path) -> int:
    """Copy ``source``'s embedding cache files keeping only the catalog's tool vectors: a rerun then embeds its queries
    afresh, as the first run did, while the catalog (embedded by the score stage and every earlier run) stays warm."""
    import numpy as np
    import polars as pl

    from ecoagent.retrieval.embedding.cache import cache_files, text_key
    from ecoagent.text.documents import tool_texts

    tools = pl.read_parquet(catalog, columns=["name", "description", "doc_summary"])
    keys = {text_key(text) for text in tool_texts(tools)}
    target.mkdir(parents=True, exist_ok=True)
    kept = 0
    for path in sorted(source.glob("*.npz")):
        parts = [np.load(p) for p in cache_files(path)]
        all_keys = np.concatenate([d["keys"] for d in parts])
        vectors = np.concatenate([d["vectors"] for d in parts])
        mask = np.isin(all_keys, np.array(sorted(keys)))
        np.savez(target / path.name, keys=all_keys[mask], vectors=vectors[mask])
        kept += int(mask.sum())
    return kept


def synth_again(from_work: Path, work: Path, embedding_cache: Path, scale: float, extra: list[str]) -> dict:
    """``ecoagent synth`` again on a finished run's score folder and LLM cache (every answer cached: nothing is sent),
    with the catalog's vectors warm and the queries' cold: the synth stage's own work, for a before/after of a fix.
    Its outputs must equal the run's byte for byte."""
    # the run's settings (the same request ids: every answer comes from its cache); no server is started
    overrides = [*production_llm_overrides("http://127.0.0.1:9/v1"), *scale_overrides(scale), *extra]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with sqlite3.connect(from_work / "llm.sqlite") as src, sqlite3.connect(work / "llm.sqlite") as dst:
        src.backup(dst)  # with what is still in the write-ahead log
    vectors = catalog_only_embedding_cache(embedding_cache, from_work / "run" / "score" / SCORE_FILES.tools,
                                           work / "embeddings")  # fmt: skip
    overrides += [f"llm.cache_path={work / 'llm.sqlite'}", f"embedding.cache_dir={work / 'embeddings'}"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    args = ["synth", "--in", str(from_work / "run" / "score"), "--out", str(work / "synth"), *set_args(overrides)]
    _, wall = ecoagent(args, work / "synth.log")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = _json(work / "synth" / SYNTH_FILES.summary)
    same = {name: (work / "synth" / name).read_bytes() == (from_work / "run" / "synth" / name).read_bytes()
            for name in (SYNTH_FILES.queries, SYNTH_FILES.pairs)}  # fmt: skip
    return {
        "from": str(from_work),
        "catalog_vectors_warm": vectors,
        "queries": summary.get("queries_kept"),
        "wall_s": round(wall, 1),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "llm_requests_sent": summary.get("requests", 0) - summary.get("requests_cached_before", 0),
        "same_outputs_as_the_run": same,
    }


def release_again(from_work: Path, work: Path, embedding_cache: Path, scale: float, extra: list[str]) -> dict:
    """``ecoagent release build`` again on a finished run's crawl, score, synth and label folders, at the run's
    version: the release stage's own work, for a before/after of a fix. Its data files must equal the run's release's
    byte for byte (the card and the Croissant file carry the build time)."""
    run = from_work / "run"
    missing = [stage for stage in ("crawl", "score", "synth", "label") if not (run / stage).is_dir()]
    if missing:
        raise SystemExit(f"--release-again {from_work}: not a finished run ({run} has no {', '.join(missing)})")

    def run_release() -> Path | None:
        folder = run / "release"
        if not folder.is_dir():
            return None
        found = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
        return found[-1] if found else None

    # the run's version; while the run is still building its release, the default (the UTC date, as the run's)
    existing = run_release()
    version = existing.name if existing else time.strftime("%Y.%m.%d", time.gmtime())
    shutil.rmtree(work, ignore_errors=True)
    (work / "run").mkdir(parents=True)
    for stage in ("crawl", "score", "synth", "label"):
        (work / "run" / stage).symlink_to(run / stage)
    overrides = [*production_llm_overrides("http://127.0.0.1:9/v1"), *scale_overrides(scale), *extra,
                 f"store={work / 'store'}", f"embedding.cache_dir={embedding_cache}",
                 f"release.repo_releases_dir={work / 'tracked'}"]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    args = ["release", "build", "--in", str(work / "run"), "--version", version, *set_args(overrides)]
    _, wall = ecoagent(args, work / "release.log")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    ours = _json(work / "run" / "release" / version / RELEASE_FILES.manifest)["files"]
    existing = run_release()  # it may have appeared while this build ran
    theirs = _json(existing / RELEASE_FILES.manifest)["files"] if existing else None
    differ = None if theirs is None else sorted(n for n in set(ours) | set(theirs) if ours.get(n) != theirs.get(n))
    return {
        "from": str(run),
        "version": version,
        "wall_s": round(wall, 1),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "peak_rss_mb": round(after.ru_maxrss / 1024, 1),
        "files": len(ours),
        "files_that_differ": differ,  # None: the run's release was not there yet to compare with
    }


# --------------------------------------------------------------------------- report


def _mb(value: float) -> str:
    return f"{value:,.0f}"


def _s(value: float) -> str:
    return f"{value:,.1f}"


def table(stages: list[dict], rows: dict[str, dict]) -> str:
    header = ("stage", "wall s", "CPU s", "peak RSS MB (proc / tree)", "rows in", "rows out", "LLM phase s",
              "LLM wait s", "own work s")  # fmt: skip
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for s in stages:
        r = rows.get(s["stage"], {})
        llm = s["llm_wall_s"] > 0
        lines.append("| " + " | ".join((
            s["stage"], _s(s["wall_s"]), _s(s["cpu_s"]), f"{_mb(s['peak_rss_mb'])} / {_mb(s['peak_tree_rss_mb'])}",
            r.get("in", ""), r.get("out", ""), _s(s["llm_wall_s"]) if llm else "-",
            _s(s["llm_wait_s"]) if llm else "-", _s(s["own_s"]),
        )) + " |")  # fmt: skip
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="share of the paper's LLM work (default 1 = all)")
    parser.add_argument("--work", type=Path, help="keep everything here (default: a temporary folder, removed)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--profile", default="default", help="base profile (CI: fixture)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="extra section.key=value")
    parser.add_argument("--embedding-cache", type=Path,
                        help="embedding cache to use (default: an empty one in the work folder, i.e. a cold run)")
    parser.add_argument("--failure-share", type=float, default=0.01, help="first attempts answered 429/503")
    parser.add_argument("--rated-train-share", type=float, default=None,
                        help="share of one epoch of Syn train RATED trains on (default: RATED_TRAIN_QUERIES "
                             "queries' worth: fine-tuning MiniLM on 2 shared cores takes ~3 s per query)")
    parser.add_argument("--burst", type=int, default=None, help="requests in the client burst (default 3,000 x scale)")
    parser.add_argument("--skip-rated", action="store_true")
    parser.add_argument("--skip-batch", action="store_true")
    parser.add_argument("--synth-again", type=Path, metavar="WORK",
                        help="instead of a run: synth again on the finished run in WORK (its LLM cache, its catalog's "
                             "vectors warm, the queries' cold) and compare the outputs; for a fix's before/after")
    parser.add_argument("--release-again", type=Path, metavar="WORK",
                        help="instead of a run: the release build again on the finished run in WORK, at its version, "
                             "and compare the data files; for a fix's before/after")
    parser.add_argument("--burst-only", action="store_true",
                        help="instead of a run: only the client burst (--burst requests at concurrency 32) against a "
                             "fresh stand-in, with its server-side counts")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.burst_only:
        print(json.dumps(burst_only(args), indent=2))
        return
    if args.synth_again or args.release_again:
        again = args.synth_again or args.release_again
        work = args.work or Path(tempfile.mkdtemp(prefix="ecoagent-again-"))
        cache = args.embedding_cache or again / "embeddings"
        measure = synth_again if args.synth_again else release_again
        result = measure(again, work, cache, args.scale, args.overrides)
        print(json.dumps(result, indent=2))
        if args.json:
            args.json.write_text(json.dumps(result, indent=2) + "\n")
        return

    temporary = args.work is None
    work = Path(tempfile.mkdtemp(prefix="ecoagent-paper-scale-")) if temporary else args.work
    clean_work(work)
    results, run_s = pipeline_run(args, work)
    stages, release = results["stages"], Path(results["release"]["folder"])
    target = args.json or work / "paper_scale.json"
    target.write_text(json.dumps(results, indent=2) + "\n")  # the run's figures, before RATED's long training
    if not args.skip_rated:
        results["rated"] = rated_run(args, work, release, stages)
    rows = stage_rows(work / "run", release)
    if "rated" in results:
        rows["rated"] = {"in": f"{results['rated']['syn_train_queries']:,} Syn train queries "
                               f"({results['rated']['train_epochs']:.3g} epoch)", "out": "Tables 1-3"}  # fmt: skip
    results["stages"] = stages
    results["rows"] = rows
    results["run"] = run_figures(stages, run_s)
    print(table(stages, rows))
    print_results(results, release)
    target.write_text(json.dumps(results, indent=2) + "\n")
    print(f"results: {target}")
    if temporary:
        shutil.rmtree(work, ignore_errors=True)


def burst_only(args: argparse.Namespace) -> dict:
    """The client burst alone against a fresh stand-in, with its server-side counts."""
    work = args.work or Path(tempfile.mkdtemp(prefix="ecoagent-burst-"))
    work.mkdir(parents=True, exist_ok=True)
    for path in work.glob("burst.sqlite*"):
        path.unlink()
    server = StandIn(work / "no-catalog.parquet", args.failure_share, work / "standin.log")
    try:
        result = {"client_burst": client_burst(server.base_url, args.burst or 3000, work)}
        result["server"] = {k: v for k, v in server.stats().items() if k != "by_kind"}
    finally:
        server.close()
    return result


def clean_work(work: Path) -> None:
    """Create the work folder and remove what an earlier run left in it (the embedding cache stays)."""
    work.mkdir(parents=True, exist_ok=True)
    for leftover in (work / "run", work / "rated", work / "batch", work / "batch_synth"):
        shutil.rmtree(leftover, ignore_errors=True)
    for leftover in ("llm.sqlite", "batch.sqlite", "burst.sqlite"):
        for path in work.glob(f"{leftover}*"):
            path.unlink()


def pipeline_run(args: argparse.Namespace, work: Path) -> tuple[dict, float]:
    """``ecoagent run`` against the stand-in, then the server's counts, the tokens, the release loaded with
    ``datasets``, the client burst and the batch backend; returns the results and the run's wall seconds."""
    out = work / "run"
    catalog = out / "score" / SCORE_FILES.tools
    common = [
        f"store={work / 'store'}",
        f"llm.cache_path={work / 'llm.sqlite'}",
        f"embedding.cache_dir={args.embedding_cache or work / 'embeddings'}",
        f"release.repo_releases_dir={work / 'tracked'}",
        *scale_overrides(args.scale),
    ]
    results: dict = {"scale": args.scale, "profile": args.profile, "work": str(work)}
    server = StandIn(catalog, args.failure_share, work / "standin.log")
    try:
        overrides = [*production_llm_overrides(server.base_url), *common, *args.overrides]
        results["overrides"] = [o.replace(server.base_url, "<stand-in>") for o in overrides]
        print(f"ecoagent run (scale {args.scale}) ... log: {work / 'run.log'}", flush=True)
        run_args = ["run", "--out", str(out), "--profile", args.profile, "--usage", str(work / "usage_run.json")]
        _, run_s = ecoagent([*run_args, *set_args(overrides)], work / "run.log", ok=(0, 3))
        stages = _json(work / "usage_run.json")["stages"]
        releases = sorted(p for p in (out / "release").iterdir() if p.is_dir() and not p.name.startswith("."))
        release = releases[-1]
        stats = server.stats()
        results["server"] = server_figures(stats, out, stages, cache_rows(work / "llm.sqlite"))
        results["tokens"] = token_figures(stats["by_kind"])
        print("loading every config and split with datasets ...", flush=True)
        results["release"] = {"folder": str(release), "gate": _json(release / RELEASE_FILES.manifest).get("gate"),
                              "load": load_release_with_datasets(release)}  # fmt: skip
        burst = args.burst if args.burst is not None else max(200, round(3000 * min(args.scale, 1.0)))
        print(f"client burst: {burst} requests at concurrency 32 ...", flush=True)
        results["client_burst"] = client_burst(server.base_url, burst, work)
        if not args.skip_batch:
            print("batch backend: request file, stand-in output, completed rerun ...", flush=True)
            results["batch"] = batch_check(out, work, [o for o in overrides if not o.startswith("llm.base_url")],
                                           catalog)  # fmt: skip
    finally:
        server.close()
    results["stages"] = stages
    return results, run_s


def server_figures(stats: dict, out: Path, stages: list[dict], new_rows: int) -> dict:
    """The stand-in's counts, checked against the response cache and the stages' summaries; each LLM stage's
    requests per second goes into its ``stages`` entry."""
    synth_summary = _json(out / "synth" / SYNTH_FILES.summary)
    label_summary = _json(out / "label" / LABEL_FILES.summary)
    figures = {
        **stats,
        "new_response_cache_rows": new_rows,
        "no_request_lost_or_repeated": stats["answered_200"] == new_rows
        and stats["failed_never_answered"] == 0
        and synth_summary.get("requests_failed", 0) == 0
        and label_summary.get("llm", {}).get("failed", 0) == 0,
    }
    for s in stages:
        llm_requests = {"synth": synth_summary.get("requests", 0),
                        "label": label_summary.get("llm", {}).get("requests", 0)}.get(s["stage"], 0)  # fmt: skip
        if llm_requests and s["llm_wall_s"] > 0:
            s["llm_requests"] = llm_requests
            s["llm_requests_per_s"] = round(llm_requests / s["llm_wall_s"], 1)
    return figures


def token_figures(by_kind: dict) -> dict:
    """Gemma tokens per generation request (a tool) and per verification request (a pair), and in all."""
    gen, ver = by_kind.get("text", {}), by_kind.get("structured", {})
    return {
        "generation_requests": gen.get("answers", 0),
        "prompt_tokens_per_tool": round(gen.get("prompt_tokens", 0) / max(gen.get("answers", 0), 1), 1),
        "completion_tokens_per_tool": round(gen.get("completion_tokens", 0) / max(gen.get("answers", 0), 1), 1),
        "verification_requests": ver.get("answers", 0),
        "prompt_tokens_per_pair": round(ver.get("prompt_tokens", 0) / max(ver.get("answers", 0), 1), 1),
        "completion_tokens_per_pair": round(ver.get("completion_tokens", 0) / max(ver.get("answers", 0), 1), 1),
        "total_prompt_tokens": gen.get("prompt_tokens", 0) + ver.get("prompt_tokens", 0),
        "total_completion_tokens": gen.get("completion_tokens", 0) + ver.get("completion_tokens", 0),
    }


def rated_run(args: argparse.Namespace, work: Path, release: Path, stages: list[dict]) -> dict:
    """``ecoagent rated`` on the run's release, trained on a share of Syn train; its stage joins ``stages``."""
    syn_train = sum(_json(release / RELEASE_FILES.manifest).get("counts", {}).get("syn-queries", {}).get(s, 0)
                    for s in ("train",))  # fmt: skip
    default_share = min(1.0, RATED_TRAIN_QUERIES / max(syn_train, 1))
    share = args.rated_train_share if args.rated_train_share is not None else default_share
    rated_overrides = [
        f"embedding.cache_dir={args.embedding_cache or work / 'embeddings'}",
        "rated.stream=syn/test",
        "rated.validation_stream=syn/validation",  # RATED (Full)'s reward, context and gamma are chosen there
        f"rated.train.epochs={share:.6g}",
        *args.overrides,
    ]
    print(f"ecoagent rated (Syn train {syn_train:,} queries, {share:.3g} of an epoch) ... "
          f"log: {work / 'rated.log'}", flush=True)  # fmt: skip
    rated_args = ["rated", "--release", str(release), "--out", str(work / "rated"), "--profile", args.profile,
                  "--usage", str(work / "usage_rated.json")]  # fmt: skip
    ecoagent([*rated_args, *set_args(rated_overrides)], work / "rated.log")
    stages += _json(work / "usage_rated.json")["stages"]
    metrics = _json(work / "rated" / RATED_FILES.metrics)
    return {
        "syn_train_queries": syn_train,
        "train_epochs": share,
        "train_steps": (metrics.get("encoder") or {}).get("steps"),
        "table2_streams": {t["stream"]: t.get("queries") for t in metrics.get("table2", []) if "skipped" not in t},
        "seconds": metrics.get("seconds"),
    }


def run_figures(stages: list[dict], run_s: float) -> dict:
    """``ecoagent run`` against the targets: own work (LLM waits excluded) and the peak RSS of the process tree."""
    run_stages = [s for s in stages if s["stage"] in RUN_STAGES]
    own = sum(s["own_s"] for s in run_stages)
    peak = max(s["peak_tree_rss_mb"] for s in stages)
    return {
        "wall_s": round(run_s, 1),
        "own_work_s": round(own, 1),
        "llm_wait_s": round(sum(s["llm_wait_s"] for s in run_stages), 1),
        "peak_tree_rss_mb": round(peak, 1),
        "own_work_target_met": own <= OWN_WORK_TARGET_S,
        "peak_rss_target_met": peak <= PEAK_RSS_TARGET_MB,
    }


def print_results(results: dict, release: Path) -> None:
    r, srv, tok = results["run"], results["server"], results["tokens"]
    print(f"ecoagent run: wall {r['wall_s']:,.1f} s, own work {r['own_work_s']:,.1f} s "
          f"(target <= {OWN_WORK_TARGET_S:,} s: {'met' if r['own_work_target_met'] else 'MISSED'}), "
          f"LLM wait {r['llm_wait_s']:,.1f} s; peak RSS "
          f"{r['peak_tree_rss_mb']:,.0f} MB (target <= {PEAK_RSS_TARGET_MB:,} MB: "
          f"{'met' if r['peak_rss_target_met'] else 'MISSED'})")  # fmt: skip
    print(f"stand-in server: {srv['requests']:,} requests, {srv['answered_200']:,} answered 200 = "
          f"{srv['new_response_cache_rows']:,} new cache rows, {srv['scripted_failures']:,} scripted 429/503 all "
          f"retried ({srv['failed_never_answered']} never answered, {srv['bodies_answered_more_than_once']} bodies "
          f"answered twice); at most {srv['max_in_flight']} in flight")  # fmt: skip
    per_s = ", ".join(f"{s['stage']} {s['llm_requests_per_s']:,} req/s" for s in results["stages"]
                      if "llm_requests_per_s" in s)
    burst = results["client_burst"]
    print(f"client: {per_s}; burst {burst['requests']:,} requests at concurrency 32: {burst['requests_per_s']:,} "
          f"req/s, {burst['client_cpu_ms_per_request']} ms client CPU per request, {burst['failed']} failed")
    print(f"tokens (Gemma 3): per tool {tok['prompt_tokens_per_tool']:,} sent / {tok['completion_tokens_per_tool']:,} "
          f"received ({tok['generation_requests']:,} tools); per verification pair {tok['prompt_tokens_per_pair']:,} / "
          f"{tok['completion_tokens_per_pair']:,} ({tok['verification_requests']:,} pairs)")  # fmt: skip
    load = results["release"]["load"]
    print(f"release {release.name}: gate {results['release']['gate']}; datasets loaded {load['splits_loaded']} "
          f"splits in {load['seconds']} s, {len(load['mismatches'])} row mismatches")
    if "batch" in results:
        b = results["batch"]
        print(f"batch backend: {b['request_lines']:,} request lines ({b['request_mb']} MB), "
              f"output {b['output_lines']:,} lines ({b['output_mb']} MB); the rerun completed from the cache in "
              f"{b['complete_run_s']} s, outputs "
              f"equal to the server run's: {b['same_outputs_as_server_run']}")  # fmt: skip
    if "rated" in results:
        print(f"rated: Table 2 streams {results['rated']['table2_streams']}")


if __name__ == "__main__":
    main()
