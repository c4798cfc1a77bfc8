"""EcoAgent core: configuration, artifact store and the `ecoagent` CLI."""

__version__ = "0.1.0"
