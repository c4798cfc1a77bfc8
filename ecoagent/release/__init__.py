"""Release building and publishing: the Hub-ready EcoAgent folder, its gate, card, Croissant file and upload.

- :mod:`ecoagent.release.build`: stage outputs -> ``release/<version>/`` (Parquet per config and split, dataset card,
  ``croissant.json``, ``manifest.json``, ``CHANGELOG.md``), gated before it is renamed into place.
- :mod:`ecoagent.release.gate`: the great-expectations gate over a built release folder.
- :mod:`ecoagent.release.card` / :mod:`ecoagent.release.croissant`: the dataset card and the Croissant JSON-LD.
- :mod:`ecoagent.release.publish`: upload a release folder to the Hugging Face Hub, tagged with its version.
"""
