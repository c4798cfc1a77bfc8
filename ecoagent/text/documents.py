"""The one text a tool is read as by every model: the release corpus's document of the tool.

A release's corpus row of a tool has its name as the ``title`` and its description (else its summary, else its name)
as the ``text`` (``release.tables``); a retriever reads ``title`` and ``text`` joined as MTEB joins them
(:func:`document_text`). Every stage that embeds a tool embeds that same string (:func:`tool_text`), so a model
embeds each tool once per run (the embedding cache is keyed by model and text) and the vectors a release ships
(``release.embeddings``) are the ones its readers would compute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl


def document_text(title: str | None, text: str | None) -> str:
    """A corpus document as a retriever reads it: title and text joined by one space, as MTEB joins them.

    MTEB (``mteb._create_dataloaders._corpus_to_dict``) gives a model ``(title + " " + text).strip()`` when a
    document has a title and ``text.strip()`` otherwise; joining the same way here makes the project's Table 1
    and an MTEB evaluation of the same model on the same release give the same figures.
    """
    title, text = title or "", text or ""
    return f"{title} {text}".strip() if title else text.strip()


def corpus_text(name: str | None, description: str | None, doc_summary: str | None = None) -> str | None:
    """A tool's corpus ``text``: its description when it has one that is not blank, else its summary (even an empty
    one), else its name."""
    if (description or "").strip():
        return description
    return doc_summary if doc_summary is not None else name


def tool_text(name: str | None, description: str | None, doc_summary: str | None = None) -> str:
    """The text a tool is embedded as, by every stage and every reader of a release: its corpus document."""
    return document_text(name, corpus_text(name, description, doc_summary))


def tool_texts(catalog: pl.DataFrame) -> list[str]:
    """:func:`tool_text` of every row of a catalog frame (``name``, ``description`` and, when it has it,
    ``doc_summary``)."""
    names, descriptions = catalog["name"].to_list(), catalog["description"].to_list()
    summaries = catalog["doc_summary"].to_list() if "doc_summary" in catalog.columns else [None] * len(names)
    return [tool_text(n, d, s) for n, d, s in zip(names, descriptions, summaries, strict=True)]
