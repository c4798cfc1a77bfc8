"""Registry packages, read safely: what a package is (:mod:`~ecoagent.packages.source`), fetching it with the
registry's own client into a cache by name@version (:mod:`~ecoagent.packages.fetch`), and reading its archive in
memory without ever extracting a link, an absolute path or a ``..`` member (:mod:`~ecoagent.packages.archive`).

The crawl reads the tool packages this way; the label stage reads its query data packages (BFCL, LiveMCPBench)
the same way. Nothing fetched is ever installed, imported or executed.
"""
