"""EcoAgent-Real beyond n8n: the example requests that the crawled packages' own READMEs, docs and tool docstrings
give for their tools, labelled with those tools (issue 43). Read statically from the archives the crawl fetched."""
