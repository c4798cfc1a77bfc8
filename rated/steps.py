"""RATED's steps (:class:`rated.stage.RatedStage`): what each one computes from a release, and the report rendered from
their files alone.

- ``train``: the RATED encoder on ``rated.train.source``, the grid chosen on validation (:mod:`rated.encoder`); the
  model is reused from the folder when it was trained on the same release, seed, source and settings;
- ``table1``: MRR, Recall@1/5, nDCG@10 with ranx on Syn test, Real test, the workflow tasks, the gold set and the
  cold-start splits, for every baseline (:mod:`rated.baselines`), the untrained and trained encoders, the re-ranker
  and the hybrids (:mod:`ecoagent.retrieval.evaluation`);
- ``table2``: the validation sweeps, Figure 4 and the failure-injection simulations (:mod:`rated.table2`);
- ``replay``: Table 2 on the release's own history, month by month, with the real-task overlap and the paired test
  of the reliability prior (:mod:`rated.replay_table`);
- ``paper_scale``: Table 1 (and Table 2 with ``rated.paper_scale.table2``) on the paper-scale view
  (:mod:`rated.paper_scale`);
- ``table3``: per-step latency at batch 1 (:mod:`rated.latency`);
- ``report``: ``metrics.json`` assembled from the step files, and ``report.md`` rendered from it (:mod:`rated.report`);
- ``card``: the replay's finding quoted in the first lines of the release's dataset card, when the release is the
  store's own (:func:`card`).

A :class:`Workbench` holds what the steps of one run share (the release, the encoder, the retrievers), each built
when a step first asks for it: run as a whole, everything is built once; one step run alone builds only what it
needs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ecoagent.config import Config
from ecoagent.layout import RATED_FILES, RELEASE_FILES
from ecoagent.release_format.integrity import content_sha256
from ecoagent.release_format.reader import Release, load_release
from ecoagent.retrieval.evaluation import offline_table
from ecoagent.retrieval.rankers import DenseRetriever, Retriever
from ecoagent.runtime import context
from ecoagent.stage import Step
from ecoagent.store import ArtifactStore
from rated.streams import first_query_set
from rated.table2 import dynamic_evaluation, table2_statics

if TYPE_CHECKING:
    from rated.encoder import EncoderChoice

# workflows-title: the same workflow queries by their title alone (the underspecified track); name:tail and
# name:unseen: the queries away from train's head (ecoagent/retrieval/head_tail.py); workflows-disjoint: tools of
# train, validation and test disjoint (release/workflows_disjoint.py)
TABLE1_SETS = ("syn/test", "real/test", "workflows/test", "workflows/test:tail", "workflows/test:unseen",
               "workflows-title/test", "workflows-title/test:tail", "workflows-title/test:unseen", "gold/test",
               "syn/cold_start", "real/cold_start", "workflows/cold_start", "workflows-disjoint/test",
               "package-requests/test")  # fmt: skip


class Workbench:
    """What the steps of one run share, each built when a step first asks for it (see the module docstring)."""

    def __init__(self, config: Config, release_folder: str | Path, out_dir: Path) -> None:
        self.config, self.release_folder, self.out_dir = config, release_folder, out_dir
        self.cache = config.resolve_path(config.embedding.cache_dir)
        self.release_vectors: list[dict] = []  # what the release's shipped vectors gave the cache (self.release)

    @cached_property
    def release(self) -> Release:
        """The release, its shipped corpus vectors taken into the embedding cache first (every step that embeds the
        corpus then finds them there)."""
        from ecoagent.release_format.vectors import adopt_release_vectors, vectors_line

        release = load_release(self.release_folder)
        context.say(f"release {release.version}: {len(release.corpus)} tools, splits {sorted(release.query_sets)}")
        self.release_vectors = adopt_release_vectors(release, self.cache)
        context.say(vectors_line(self.release_vectors))
        return release

    @property
    def inputs(self) -> dict:
        """What every step's output is computed from: the release (its manifest's sha256 but the card's entry, which
        the card step rewrites), the profile, the seed,
        the RATED settings and the evaluation settings Table 1 shares; each step's file is reused only while these are
        the same."""
        manifest = json.loads((self.release.folder / RELEASE_FILES.manifest).read_bytes())
        release = {"folder": self.release.location, "version": self.release.version,
                   "content_sha256": content_sha256(manifest)}  # fmt: skip
        config = self.config
        return {"release": release, "profile": config.profile, "seed": config.seed,
                "settings": config.rated.model_dump(mode="json"),
                "evaluation": config.evaluation.model_dump(mode="json")}  # fmt: skip

    @cached_property
    def encoder(self) -> EncoderChoice:
        from rated.encoder import choose_encoder

        encoder = choose_encoder(self.release, self.config.rated, self.out_dir, self.config.seed, self.cache)
        context.say(f"encoder: {encoder.record['settings']}, {encoder.record['steps']} steps")
        return encoder

    @cached_property
    def table1_retrievers(self) -> tuple[list[Retriever], dict[str, str]]:
        """Every retriever of Table 1, in its row order, and what was skipped (a model that did not load) and why."""
        from rated.baselines import hybrid_retrievers, offline_baselines, reranker

        rated = self.config.rated
        baselines = offline_baselines(rated, self.release.corpus, self.cache)
        context.say(f"baselines: {', '.join(r.name for r in baselines.retrievers)}")
        rerank, rerank_skipped = reranker(rated, self.encoder.trained, self.release.corpus)
        skipped = dict(baselines.skipped)
        if rerank_skipped:
            skipped["cross-encoder re-ranker"] = rerank_skipped
        retrievers: list[Retriever] = [*baselines.retrievers, self.encoder.untrained, *self.encoder.compared]
        if rerank is not None:
            retrievers.append(rerank)
        retrievers.append(self.encoder.trained)
        return retrievers + hybrid_retrievers(rated, retrievers), skipped

    @property
    def retrievers(self) -> list[Retriever]:
        return self.table1_retrievers[0]


def train(bench: Workbench) -> dict:
    from rated.encoder import static_query_encoder

    encoder = bench.encoder
    model = bench.out_dir / RATED_FILES.model_folder
    static = static_query_encoder(bench.release, bench.config.rated, encoder.trained, model,
                                  encoder.record["fingerprint"])  # fmt: skip
    if static is not None:
        context.say(f"static query encoder of the tower: {model / RATED_FILES.static_query_encoder} "
                    f"({static['fitted_on_texts']} fitting texts)")  # fmt: skip
    return {"encoder": encoder.record, "release_vectors": bench.release_vectors, "static_query_encoder": static}


def table1(bench: Workbench) -> dict:
    retrievers, skipped = bench.table1_retrievers
    config = bench.config
    table, judged = offline_table(bench.release, retrievers, TABLE1_SETS, config.seed, config.evaluation.head_tools)
    context.say("Table 1 done")
    return {"skipped": skipped, "table1": table, "table1_sets": judged}


def table2(bench: Workbench) -> dict:
    trained = bench.encoder.trained
    statics = table2_statics(bench.retrievers, trained)
    streams, validation, fig4 = dynamic_evaluation(bench.release, statics, trained, bench.config,
                                                   bench.out_dir / "plots")  # fmt: skip
    context.say("Table 2 done")
    return {"validation": validation, "figure4": fig4, "table2": streams}


def replay(bench: Workbench) -> dict:
    """Table 2 on the release's history (:mod:`rated.replay_table`), RATED (Full) with the table2 step's choice."""
    from rated.replay_table import replay_evaluation

    table2_file = bench.out_dir / RATED_FILES.table2
    validation = json.loads(table2_file.read_text())["record"].get("validation", {}) if table2_file.exists() else {}
    record = replay_evaluation(bench.release, bench.encoder.trained, bench.config, validation.get("chosen"))
    context.say("replay done" if "skipped" not in record else f"replay skipped: {record['skipped']}")
    return {"replay": record}


def paper_scale(bench: Workbench) -> dict:
    """Table 1 (and Table 2 with ``rated.paper_scale.table2``) on the paper-scale view; None without listings."""
    from rated.paper_scale import paper_scale_view

    config = bench.config
    if not config.rated.paper_scale.listings:
        return {"paper_scale": None}
    scale = paper_scale_view(bench.release, bench.retrievers, bench.encoder.trained, config.rated)
    table, judged = offline_table(scale.view, scale.retrievers, TABLE1_SETS, config.seed,
                                  config.evaluation.head_tools)
    out = {**scale.record, "table1": table, "table1_sets": judged}
    if config.rated.paper_scale.table2:
        statics = table2_statics(scale.retrievers, scale.trained)
        plots = bench.out_dir / "plots" / "paper-scale"
        out["table2"], out["validation"], _ = dynamic_evaluation(scale.view, statics, scale.trained, config, plots)
    context.say("paper-scale tables done")
    return {"paper_scale": out}


def table3(bench: Workbench) -> dict:
    """Per-step latency of the trained ranker at batch 1, on one thread."""
    import torch

    from rated.latency import measure_latency

    config, ranker, release = bench.config, bench.encoder.trained, bench.release
    queries = first_query_set(release, [*config.rated.stream, config.rated.anchored.templates])
    texts = queries.texts if queries else ["find a tool"]
    assert isinstance(ranker, DenseRetriever) and ranker.tool_vectors is not None
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # batch 1 gains nothing from more threads, and they add jitter on a shared CPU
    try:
        latency = measure_latency(ranker.encode_query_uncached, ranker.tool_vectors, release.corpus.r_static, texts,
                                  k=config.rated.top_k, steps=config.rated.latency_steps,
                                  warmup=min(200, config.rated.latency_steps))  # fmt: skip
    finally:
        torch.set_num_threads(threads)
    context.say("Table 3 done")
    return {"table3": latency}


STEP_WORK: dict[str, Callable[[Workbench], dict]] = {
    "train": train, "table1": table1, "table2": table2, "replay": replay, "paper_scale": paper_scale, "table3": table3,
}  # fmt: skip


def metrics_from_files(store: ArtifactStore, recorded: Sequence[Step]) -> dict:
    """``metrics.json``: the run's inputs (from the train step's file) and the record in each of the ``recorded``
    steps' files, in their order, the seconds summed."""
    files = {step.name: store.read_json(step.output) for step in recorded}
    run = files["train"]["inputs"]  # the same in every step's file: its fingerprint covers them
    metrics = {
        "release": {"folder": run["release"]["folder"], "version": run["release"]["version"]},
        "profile": run["profile"],
        "seed": run["seed"],
        "settings": run["settings"],
        "evaluation": run.get("evaluation"),
    }
    for file in files.values():
        metrics.update(file["record"])
    metrics["seconds"] = round(sum(file["seconds"] for file in files.values()), 1)
    return metrics


def card(bench: Workbench, store: ArtifactStore) -> dict:
    """The replay's finding quoted in the card of the release (:func:`rated.replay_report.card_quote`) when the
    release is the store's own (``<root>/release/<version>``, the one ``ecoagent release publish`` uploads); a copy
    elsewhere (one downloaded from the Hub) keeps the card it was published with. ``card.json``: what it did."""
    from ecoagent.layout import RunLayout
    from ecoagent.release_format.card_quote import quote_in_card
    from rated.replay_report import card_quote

    config, folder = bench.config, str(bench.release_folder)
    replay = store.read_json(RATED_FILES.replay)["record"]["replay"]
    own = RunLayout.of(config).versioned("release", folder.rstrip("/").rsplit("/", 1)[-1])
    if "skipped" in replay:
        record = {"skipped": f"the replay did not run ({replay['skipped']}): the card is left as it is"}
    elif not _same_folder(folder, own):
        record = {"skipped": f"{folder} is not the store's release ({own}): its card is left as published"}
    else:
        encoder = store.read_json(RATED_FILES.train)["record"]["encoder"]
        quote = card_quote(replay, encoder, config.profile)
        quoted = quote_in_card(folder, quote, config.resolve_path(config.release.repo_releases_dir))
        record = {"card": quoted.card, "changed": quoted.changed, "sha256": quoted.sha256,
                  "tracked": quoted.tracked, "quote": quote}  # fmt: skip
    context.say(f"card: {record.get('skipped') or 'the replay quoted in ' + record['card']}")
    store.write_json(record, RATED_FILES.card)
    return record


def _same_folder(a: str, b: str) -> bool:
    """Whether two spellings of a folder (local paths, relative or not, or URLs) name the same one."""
    a, b = (x.removeprefix("file://").rstrip("/") for x in (a, b))
    if "://" in a or "://" in b:
        return a == b
    return Path(a).resolve() == Path(b).resolve()


def report(store: ArtifactStore, recorded: Sequence[Step]) -> dict:
    """``metrics.json`` and ``report.md`` from the ``recorded`` steps' files in ``store``; the metrics."""
    from rated.report import render_report

    metrics = metrics_from_files(store, recorded)
    store.write_json(metrics, RATED_FILES.metrics)
    store.write_text(render_report(metrics), RATED_FILES.report)
    return metrics
