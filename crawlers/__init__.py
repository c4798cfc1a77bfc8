"""Registry fetching, safe archive reading and one static extractor per platform.

Each platform module (``langchain``, ``crewai``, ``llamaindex``, ``n8n``, ``mcp``) exports
``want(path) -> bool`` and ``extract(PackageFiles) -> Extraction``; ``crawl.crawl`` drives them.
"""
