"""A tool is embedded as its release corpus document, by every stage and every reader of the release."""

from __future__ import annotations

import polars as pl

from ecoagent.text.documents import document_text, tool_text, tool_texts
from release.tables import _corpus

TOOLS = pl.DataFrame({
    "tool_id": ["a", "b", "c", "d", "e"],
    "name": ["send_mail", "search", "convert", "lookup", "ping"],
    "description": ["Send an e-mail.", "   ", None, "", None],
    "doc_summary": [None, "Search the web.", "Convert units.", "", None],
    "platform": ["mcp"] * 5,
    "r_static": [0.5] * 5,
    "reliable": [True] * 5,
})  # fmt: skip


def test_the_text_is_the_corpus_document_of_the_release():
    corpus = _corpus(TOOLS)
    documents = [document_text(t, x) for t, x in corpus.select("title", "text").iter_rows()]
    assert tool_texts(TOOLS) == documents
    assert documents == ["send_mail Send an e-mail.", "search Search the web.", "convert Convert units.", "lookup",
                         "ping ping"]  # fmt: skip


def test_a_blank_description_falls_back_to_the_summary_then_the_name():
    assert tool_text("search", "  ", "Search the web.") == "search Search the web."
    assert tool_text("ping", None) == "ping ping"
    assert tool_text(None, "Only a description.") == "Only a description."
