"""The Croissant 1.0 description (``croissant.json``) of a release, with the Responsible-AI (RAI) fields.

Distribution: one ``cr:FileObject`` per Parquet file (relative ``contentUrl``, size, sha256), plus one
``cr:FileSet`` per config folder (``includes: <folder>/*.parquet``) that the record sets read, so a record set
spans all splits of its config and carries the split as a field parsed from the file name. Record sets:
``tools`` (its scalar columns; lists and structs are described, not mapped), ``corpus``, and the queries,
qrels and pairs of Syn and Real.

:func:`validate_croissant` loads the file with ``mlcroissant`` and reads the first record of every record set,
so a field pointing at a missing column fails the build, not a downstream user. Relative ``contentUrl`` values
resolve against the folder of ``croissant.json``, i.e. inside the release folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

CROISSANT_1_0 = "http://mlcommons.org/croissant/1.0"
RAI_1_0 = "http://mlcommons.org/croissant/RAI/1.0"
PARQUET = "application/x-parquet"
_SPLIT_FROM_FILENAME = r"^(.*)-\d{5}-of-\d{5}\.parquet$"
# Record set -> (folder of its files, description).
RECORD_SETS = {
    "tools": ("tools", "The scored tool catalog: one row per tool."),
    "corpus": ("corpus", "The retrieval corpus of both subsets: one document per tool (MTEB _id/title/text)."),
    "syn-queries": ("syn-queries", "EcoAgent-Syn queries (MTEB _id/text)."),
    "syn-qrels": ("syn-qrels", "EcoAgent-Syn relevance judgments (MTEB query-id/corpus-id/score)."),
    "syn-pairs": ("syn-pairs", "EcoAgent-Syn training pairs: positives and hard/random negatives."),
    "real-queries": ("real-queries", "EcoAgent-Real queries (MTEB _id/text)."),
    "real-qrels": ("real-qrels", "EcoAgent-Real verified relevance judgments (MTEB query-id/corpus-id/score)."),
}


def _context() -> dict:
    from mlcroissant._src.core.rdf import make_context

    return make_context()


def _data_type(dtype: pl.DataType) -> str | None:
    if dtype == pl.String:
        return "sc:Text"
    if dtype == pl.Boolean:
        return "sc:Boolean"
    if dtype.is_float():
        return "sc:Float"
    if dtype.is_integer():
        return "sc:Integer"
    return None  # lists and structs: described in the record set, not mapped (mlcroissant reads them poorly)


def _record_set(name: str, folder: str, description: str, schema: pl.Schema) -> dict:
    fileset = {"fileSet": {"@id": f"{folder}-files"}}
    fields = []
    skipped = []
    for column, dtype in schema.items():
        data_type = _data_type(dtype)
        if data_type is None:
            skipped.append(column)
            continue
        fields.append(
            {
                "@type": "cr:Field",
                "@id": f"{name}/{column}",
                "name": column,
                "dataType": data_type,
                "source": {**fileset, "extract": {"column": column}},
            }
        )
    if "split" in schema:  # syn-pairs carries its split as a column already
        return _finish(name, description, fields, skipped)
    fields.append(
        {
            "@type": "cr:Field",
            "@id": f"{name}/split",
            "name": "split",
            "description": "the split, from the file name",
            "dataType": "sc:Text",
            "source": {
                **fileset,
                "extract": {"fileProperty": "filename"},
                "transform": {"regex": _SPLIT_FROM_FILENAME},
            },
        }
    )
    return _finish(name, description, fields, skipped)


def _finish(name: str, description: str, fields: list[dict], skipped: list[str]) -> dict:
    if skipped:
        description += f" Nested columns in the Parquet files but not mapped here: {', '.join(skipped)}."
    return {"@type": "cr:RecordSet", "@id": name, "name": name, "description": description, "field": fields}


def build_croissant(info: dict, folder: Path) -> dict:
    """The Croissant JSON-LD of the release being built in ``folder`` (its Parquet files are already written)."""
    folder = Path(folder)
    gen, real = info["generator"], info["real"]
    distribution: list[dict] = []
    for path, meta in info["files"].items():
        distribution.append(
            {
                "@type": "cr:FileObject",
                "@id": path,
                "name": path,
                "contentUrl": path,
                "contentSize": f"{meta['bytes']} B",
                "encodingFormat": PARQUET,
                "sha256": meta["sha256"],
            }
        )
    record_sets = []
    folders = {p.split("/", 1)[0] for p in info["files"]}
    for name, (sub, description) in RECORD_SETS.items():
        if sub not in folders:
            continue  # e.g. no real-qrels at all: the gate fails such a release anyway
        distribution.append(
            {
                "@type": "cr:FileSet",
                "@id": f"{sub}-files",
                "name": f"{sub}-files",
                "encodingFormat": PARQUET,
                "includes": f"{sub}/*.parquet",
            }
        )
        schema = pl.read_parquet_schema(next(folder.joinpath(sub).glob("*.parquet")))
        record_sets.append(_record_set(name, sub, description, pl.Schema(schema)))
    not_benchmark = " NOT A BENCHMARK: generated by the embedded base model." if gen["not_a_benchmark"] else ""
    review = real.get("review")
    return {
        "@context": _context(),
        "@type": "sc:Dataset",
        "conformsTo": [CROISSANT_1_0, RAI_1_0],
        "name": f"EcoAgent-{info['version']}",
        "description": "EcoAgent: a benchmark for reliability-aware tool retrieval (RATED, CIKM 2026): crawled agent "
        "tools with reliability scores, synthetic (Syn) and real (Real) queries with relevance judgments."
        + not_benchmark,
        "version": _croissant_version(info["version"]),
        "datePublished": info["created"][:10],
        "license": "https://creativecommons.org/licenses/by/4.0/",
        "citeAs": "RATED: Reliability-Aware Tool Retrieval for LLM Agents, with the EcoAgent Benchmark. CIKM 2026.",
        "keywords": ["tool retrieval", "LLM agents", "reliability", "function calling", "MTEB"],
        "inLanguage": ["en"],
        "distribution": distribution,
        "recordSet": record_sets,
        "rai:dataCollection": (
            f"Static crawl of {len(info['packages'])} pinned packages from PyPI and npm (platforms: "
            f"{', '.join(info['platforms'])}); packages are read as archives, never imported or run. Real queries "
            f"from {', '.join(real['sources'])}; synthetic queries generated per tool by an LLM."
        ),
        "rai:dataCollectionType": ["Web Scraping", "Software Collection", "Synthetic Data Generation"],
        "rai:dataPreprocessingProtocol": [
            "Normalization into one tool schema; exact and near-duplicate removal; secret-looking strings redacted.",
            f"Synthetic queries filtered by length, description overlap and language; MinHash near-duplicate removal "
            f"(Jaccard > {info['dedup_threshold']['syn']}).",
            "Splits grouped by near-duplicate cluster and checked for leakage; a cold-start split for new tools.",
        ],
        "rai:dataAnnotationProtocol": [
            f"Syn: the tool a query was generated for is its positive (generator {', '.join(gen['models'])}, prompt "
            f"{', '.join(str(p) for p in gen['prompt_versions'])}).",
            f"Real: top-k candidates by {real['retriever']}, verified by the {real['verifier']} verifier "
            f"({real['verifier_model']}, score >= {real['min_verifier_score']}).",
        ],
        "rai:dataAnnotationPlatform": ["EcoAgent pipeline (automatic)"],
        "rai:dataAnnotationAnalysis": [
            f"Verifier agreement with people on {review['labelled_pairs']} pairs: {review['agreement']:.1%}, "
            f"Cohen's kappa {review['cohen_kappa']:.2f}."
            if review
            else "No human review sample was labelled for this release."
        ],
        "rai:machineAnnotationTools": sorted(
            {*gen["models"], real["verifier_model"], real["retriever"], info["models"]["embedder"]}
        ),
        "rai:annotationsPerItem": "One automatic judgment per (query, tool) pair.",
        "rai:dataBiases": [
            "Platform imbalance: " + ", ".join(f"{k} {v}" for k, v in info["platform_counts"].items()) + " tools.",
            "Synthetic queries inherit the generator model's style and topics; real queries the source benchmark's.",
            "Reliability weights favour official and platform listings over community packages.",
        ],
        "rai:dataLimitations": [
            "Reliability is static (metadata only); tools are never called and links are unchecked offline.",
            "Automatic labels: false negatives outside the retrieved top-k are likely.",
            *(
                ["Not a benchmark: queries generated by the embedded Gemma 3 270M base model."]
                if gen["not_a_benchmark"]
                else []
            ),
        ],
        "rai:dataUseCases": [
            "Training and evaluating tool retrievers, including reliability-aware reranking (RATED).",
            "Cold-start evaluation on tools added since the previous release.",
        ],
        "rai:dataSocialImpact": "Helps agents pick dependable tools; misuse risk is low (public tool metadata).",
        "rai:personalSensitiveInformation": [
            "None intended: tool metadata from public packages; secret-looking strings are redacted at crawl time.",
            "Real queries are public benchmark queries; they may mention names or places written by their users.",
        ],
        "rai:dataReleaseMaintenancePlan": (
            "Versioned releases (Hub revision = version) with a changelog of added, removed and changed tools; "
            "refreshes re-crawl pinned package versions."
        ),
    }


def _croissant_version(version: str) -> str:
    # Croissant wants MAJOR.MINOR.PATCH; a "v1.2.0" tag keeps its numbers, anything else is recorded as-is.
    stripped = version[1:] if version[:1] in "vV" else version
    return stripped


def validate_croissant(path: Path) -> list[str]:
    """Validate ``path`` with mlcroissant and read one record per record set; return its (empty) warning list.

    Raises ``mlcroissant.ValidationError`` when the file is not valid Croissant, and also on mlcroissant
    *warnings*: the one seen so far was a real defect (two fields with one ``@id``), so the build treats them as
    errors rather than publishing a file that other readers may interpret differently.
    """
    import mlcroissant as mlc

    dataset = mlc.Dataset(jsonld=str(path))
    warnings = [str(w) for w in sorted(dataset.metadata.ctx.issues.warnings)]
    if warnings:
        raise mlc.ValidationError(f"{path}: mlcroissant warnings: {warnings}")
    for record_set in json.loads(Path(path).read_text())["recordSet"]:
        for _record in dataset.records(record_set["@id"]):
            break  # one record proves every field's column exists and parses
    return warnings
