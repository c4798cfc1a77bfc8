"""The Croissant description (``croissant.json``) of a release, with the Responsible-AI (RAI) fields.

Built with ``mlcroissant``'s public API (``Metadata``, ``FileObject``, ``FileSet``, ``RecordSet``, ``Field``,
``Source``, ``Extract``, ``Transform``), which also writes the JSON-LD context. Distribution: one ``FileObject``
per Parquet file (relative ``contentUrl``, size, sha256), plus one ``FileSet`` per config folder
(``includes: <folder>/*.parquet``) that the record sets read, so a record set spans all splits of its config and
carries the split as a field parsed from the file name. Record sets: ``tools``, ``corpus``, the queries,
qrels and pairs of Syn and Real, and ``tool-events`` when the release has it, each describing **every** column of
its Parquet files: a list column is a ``repeated`` field, a list of structs (``links``, ``flaws``) a repeated field
with one sub-field per struct key.

:func:`validate_croissant` loads the file with ``mlcroissant`` and reads the first record of every record set,
so a field pointing at a missing column fails the build, not a downstream user. Relative ``contentUrl`` values
resolve against the folder of ``croissant.json``, i.e. inside the release folder.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import mlcroissant as mlc
import polars as pl

from release.card import PAPER_CITE_AS

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
    "gold-queries": ("gold-queries", "Gold set: LiveMCPBench's human-annotated tasks (test only)."),
    "gold-qrels": ("gold-qrels", "Gold set: the annotated tools mapped to catalog tools (several per query; "
                   "alternative: acceptable, not required, score 0)."),
    "workflows-queries": ("workflows-queries", "Workflows: n8n.io workflow templates as tasks (title + cleaned "
                          "description), with their author, link, views and creation date."),
    "workflows-qrels": ("workflows-qrels", "Workflows: the catalog tools each template runs, graded 2 (the title "
                        "names the service) or 1 (only the description does); alternative: acceptable, not required."),
    "workflows-title-queries": ("workflows-title-queries", "Workflows, title track: the template title alone."),
    "workflows-title-qrels": ("workflows-title-qrels", "Workflows, title track: the same qrels as workflows-qrels."),
    "workflows-disjoint-queries": ("workflows-disjoint-queries", "Workflows split by service: no test tool in train."),
    "workflows-disjoint-qrels": ("workflows-disjoint-qrels", "Workflows split by service: its queries' qrels."),
    "package-requests-queries": ("package-requests-queries", "Package requests: the example requests that the crawled "
                                 "packages' READMEs, docs and tool docstrings give, with package, member and licence."),
    "package-requests-qrels": ("package-requests-qrels", "Package requests: the tools each request is given to (one "
                               "tool, or its package's tool set: label_level)."),
    "tool-events": ("tool-events", "What happened to each tool month by month in the catalog history: removed, "
                    "renamed, restored, deprecated, package_deprecated, description_changed, with the month and the "
                    "evidence (package@version and the flag, message or match)."),
}


def _data_type(dtype: pl.DataType, column: str) -> str:
    if dtype == pl.String:
        return mlc.DataType.TEXT
    if dtype == pl.Boolean:
        return mlc.DataType.BOOL
    if dtype.is_float():
        return mlc.DataType.FLOAT
    if dtype.is_integer():
        return mlc.DataType.INTEGER
    # a new column type must be described before it is released, not silently left out
    raise ValueError(f"column {column!r} has type {dtype}, which croissant.py cannot describe yet")


def _source(fileset: str, column: str, json_path: str | None = None) -> mlc.Source:
    transforms = [mlc.Transform(json_path=json_path)] if json_path else []
    return mlc.Source(file_set=fileset, extract=mlc.Extract(column=column), transforms=transforms)


def _field(record_set: str, fileset: str, column: str, dtype: pl.DataType) -> mlc.Field:
    """One column as a field: a scalar, a list of scalars (repeated), or a list of structs (repeated, with
    one sub-field per struct key read by a JSON path from each element)."""
    field_id = f"{record_set}/{column}"
    if isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
        sub_fields = [
            mlc.Field(
                id=f"{field_id}/{key.name}",
                name=key.name,
                data_types=[_data_type(key.dtype, f"{column}.{key.name}")],
                source=_source(fileset, column, key.name),
            )
            for key in dtype.inner.fields
        ]
        keys = ", ".join(f.name for f in dtype.inner.fields)
        return mlc.Field(id=field_id, name=column, repeated=True, sub_fields=sub_fields,
                         description=f"a list of records ({keys})")  # fmt: skip
    if isinstance(dtype, pl.List | pl.Array):
        size = f" of {dtype.size}" if isinstance(dtype, pl.Array) else ""
        return mlc.Field(id=field_id, name=column, repeated=True, data_types=[_data_type(dtype.inner, column)],
                         source=_source(fileset, column), description=f"a list{size}")  # fmt: skip
    return mlc.Field(id=field_id, name=column, data_types=[_data_type(dtype, column)], source=_source(fileset, column))


def _record_set(name: str, folder: str, description: str, schema: pl.Schema) -> mlc.RecordSet:
    fileset = f"{folder}-files"
    fields = [_field(name, fileset, column, dtype) for column, dtype in schema.items()]
    if "split" not in schema:  # syn-pairs carries its split as a column already
        fields.append(
            mlc.Field(
                id=f"{name}/split",
                name="split",
                description="the split, from the file name",
                data_types=[mlc.DataType.TEXT],
                source=mlc.Source(
                    file_set=fileset,
                    extract=mlc.Extract(file_property="filename"),
                    transforms=[mlc.Transform(regex=_SPLIT_FROM_FILENAME)],
                ),
            )
        )
    return mlc.RecordSet(id=name, name=name, description=description, fields=fields)


def build_croissant(info: dict, folder: Path) -> dict:
    """The Croissant JSON-LD of the release being built in ``folder`` (its Parquet files are already written)."""
    distribution, record_sets = _distribution(info, Path(folder))
    not_benchmark = " NOT A BENCHMARK: generated by the embedded base model."
    not_benchmark = not_benchmark if info["generator"]["not_a_benchmark"] else ""
    metadata = mlc.Metadata(
        name=f"EcoAgent-{info['version']}",
        conforms_to=[CROISSANT_1_0, RAI_1_0],
        description="EcoAgent: a benchmark for reliability-aware tool retrieval (RATED, CIKM 2026): crawled agent "
        "tools with reliability scores, synthetic (Syn) and real (Real) queries with relevance judgments."
        + not_benchmark,
        version=_croissant_version(info["version"]),
        date_published=datetime.fromisoformat(info["created"][:10]),
        license=["https://creativecommons.org/licenses/by/4.0/"],
        cite_as=PAPER_CITE_AS,
        keywords=["tool retrieval", "LLM agents", "reliability", "function calling", "MTEB"],
        in_language=["en"],
        distribution=distribution,
        record_sets=record_sets,
        **_responsible_ai(info),
    )
    return metadata.to_json()


def _distribution(info: dict, folder: Path) -> tuple[list[mlc.FileObject | mlc.FileSet], list[mlc.RecordSet]]:
    """One ``FileObject`` per Parquet file, one ``FileSet`` per config folder, and the record sets reading them."""
    distribution: list[mlc.FileObject | mlc.FileSet] = [
        mlc.FileObject(
            id=path,
            name=path,
            content_url=path,
            content_size=f"{meta['bytes']} B",
            encoding_formats=[PARQUET],
            sha256=meta["sha256"],
        )
        for path, meta in info["files"].items()
    ]
    record_sets = []
    folders = {p.split("/", 1)[0] for p in info["files"]}
    shipped = {name: (name, f"The corpus vectors of {entry['model']} ({entry['revision']}): one {entry['dimension']}-"
                            f"dimension {entry['dtype']} vector per corpus _id, {entry['normalized']}; text: "
                            f"{entry['text']}.") for name, entry in (info.get("embeddings") or {}).items()}  # fmt: skip
    for name, (sub, description) in (RECORD_SETS | shipped).items():
        if sub not in folders:
            continue  # e.g. no real-qrels at all: the gate fails such a release anyway
        files = f"{sub}-files"
        distribution.append(
            mlc.FileSet(id=files, name=files, encoding_formats=[PARQUET], includes=[f"{sub}/*.parquet"])
        )
        schema = pl.read_parquet_schema(next(folder.joinpath(sub).glob("*.parquet")))
        record_sets.append(_record_set(name, sub, description, pl.Schema(schema)))
    return distribution, record_sets


def _responsible_ai(info: dict) -> dict:
    """The RAI fields: how the data was collected, processed and annotated, its biases, limitations and uses."""
    gen, real = info["generator"], info["real"]
    review = real.get("review")
    return {**_rai_collection(info, real), **_rai_annotation(info, gen, real, review),
            **_rai_limitations_and_uses(info, gen)}  # fmt: skip


def _rai_collection(info: dict, real: dict) -> dict:
    """How the tools and queries were collected and processed."""
    return {
        "data_collection": (
            f"Static crawl of {len(info['packages'])} pinned packages from PyPI and npm (platforms: "
            f"{', '.join(info['platforms'])}); packages are read as archives, never imported or run. Real queries "
            f"from {', '.join(real['sources'])}; synthetic queries generated per tool by an LLM."
        ),
        "data_collection_type": ["Web Scraping", "Software Collection", "Synthetic Data Generation"],
        "data_preprocessing_protocol": [
            "Normalization into one tool schema; exact and near-duplicate removal; secret-looking strings redacted.",
            f"Synthetic queries filtered by length, description overlap and language; MinHash near-duplicate removal "
            f"(Jaccard > {info['dedup_threshold']['syn']}).",
            "Splits grouped by near-duplicate cluster and checked for leakage; a cold-start split for new tools.",
        ],
    }


def _rai_annotation(info: dict, gen: dict, real: dict, review: dict | None) -> dict:
    """Who or what labelled each subset, on which platform, and how well the labels agree with people."""
    return {
        "data_annotation_protocol": _annotation_protocol(info, gen, real),
        "data_annotation_platform": ["EcoAgent pipeline (automatic)", *(["LiveMCPBench"] if info.get("gold") else []),
                                     *(["n8n.io workflow templates"] if info.get("workflows") else [])],
        "data_annotation_analysis": [
            f"Verifier agreement with people on {review['labelled_pairs']} pairs: {review['agreement']:.1%}, "
            f"Cohen's kappa {review['cohen_kappa']:.2f}."
            if review
            else "No human review sample was labelled for this release."
        ],
        "machine_annotation_tools": sorted(
            {*gen["models"], real["verifier_model"], real["retriever"], info["models"]["embedder"]}
        ),
        "annotations_per_item": "One automatic judgment per (query, tool) pair.",
    }


def _annotation_protocol(info: dict, gen: dict, real: dict) -> list[str]:
    """One line per labelled subset: Syn, Real, and Gold and Workflows when the release has them."""
    return [
        f"Syn: the tool a query was generated for is its positive (generator {', '.join(gen['models'])}, prompt "
        f"{', '.join(str(p) for p in gen['prompt_versions'])}).",
        f"Real: top-{real['top_k']} candidates by {real['retriever']}, labelled by "
        + " and ".join(f"{d['verifier']} ({d['model']}, score >= {d['min_score']})" for d in real["decided_by"])
        + f"; precision on the gold set: {real['precision_on_gold']}.",
        *(
            [f"Gold: LiveMCPBench's tasks, tools annotated by {info['gold']['source'].get('annotated_by')}, "
             "mapped to catalog tools by name on LiveMCPBench's servers (gold-mapping.json)."]
            if info.get("gold") else []
        ),
        *(
            ["Workflows: the catalog tools of the app nodes each n8n.io template runs, by construction "
             "(workflow-mapping.json), graded by whether the title or only the description names the service."]
            if info.get("workflows") else []
        ),
    ]


def _rai_limitations_and_uses(info: dict, gen: dict) -> dict:
    """The data's biases and limitations, its intended uses and impact, personal information and maintenance."""
    return {
        "data_biases": [
            "Platform imbalance: " + ", ".join(f"{k} {v}" for k, v in info["platform_counts"].items()) + " tools.",
            "Synthetic queries inherit the generator model's style and topics; real queries the source benchmark's.",
            "Reliability weights favour official and platform listings over community packages.",
        ],
        "data_limitations": [
            "Reliability is static (metadata only); tools are never called and links are unchecked offline.",
            "Automatic labels: false negatives outside the retrieved top-k are likely.",
            *(
                ["Not a benchmark: queries generated by the embedded Gemma 3 270M base model."]
                if gen["not_a_benchmark"]
                else []
            ),
        ],
        "data_use_cases": [
            "Training and evaluating tool retrievers, including reliability-aware reranking (RATED).",
            "Cold-start evaluation on tools added since the previous release.",
        ],
        "data_social_impact": "Helps agents pick dependable tools; misuse risk is low (public tool metadata).",
        "personal_sensitive_information": [
            "None intended: tool metadata from public packages; secret-looking strings are redacted at crawl time.",
            "Real queries are public benchmark queries; they may mention names or places written by their users.",
            "E-mail addresses and phone numbers in query, corpus and tool texts are replaced by [email] and [phone], "
            "and tables of sample personal data dropped (ecoagent.text.personal_data; counts in the manifest's "
            "stats.personal_data_scrubbed); workflow template authors stay named as their attribution.",
        ],
        "data_release_maintenance_plan": (
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
    dataset = mlc.Dataset(jsonld=str(path))
    warnings = [str(w) for w in sorted(dataset.metadata.ctx.issues.warnings)]
    if warnings:
        raise mlc.ValidationError(f"{path}: mlcroissant warnings: {warnings}")
    for record_set in json.loads(Path(path).read_text())["recordSet"]:
        for _record in dataset.records(record_set["@id"]):
            break  # one record proves every field's column exists and parses
    return warnings
