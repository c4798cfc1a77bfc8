"""The crawl stage: the pinned source list, one static extractor per platform, normalization and links.

Fetching and safe archive reading are the core's (``ecoagent.packages``): the label stage reads its data
packages the same way.

Each platform module (``langchain``, ``crewai``, ``llamaindex``, ``n8n``, ``mcp``) exports
``want(path) -> bool`` and ``extract(PackageFiles) -> Extraction``; ``crawl.crawl`` drives them.
The three Python extractors share the static reading in ``python``; ``vocabulary`` holds the words
that mark credentials and the URLs that are not endpoints, for every extractor and ``links``.
"""
