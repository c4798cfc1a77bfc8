"""Package metadata: documentation URLs from METADATA."""

from __future__ import annotations

from crawlers.python.metadata import read_metadata


def test_metadata_doc_urls() -> None:
    meta = read_metadata(
        {
            "x-1.dist-info/METADATA": (
                b"Metadata-Version: 2.1\nName: x\nProject-URL: Source, https://github.com/x/x\n"
                b"Project-URL: Documentation, https://docs.x.dev\nProject-URL: Homepage, https://x.dev\n\nBody text\n"
            )
        }
    )
    assert meta.doc_urls() == ["https://docs.x.dev", "https://x.dev"]
    assert "Body text" in meta.body
