"""The release stage: the Hub-ready EcoAgent folder built from the stage outputs, its gate, card, Croissant file
and upload.

It reads the crawl, score, synth and label folders as files (``release.build.ReleaseInputs``) and never imports
those stages; ``releases/`` at the repository root holds the text-only copy of each released version.

- :mod:`release.stage`: the release as the last stage of the refresh; :mod:`release.run` builds it from a run's
  stage folders and copies its manifest, card and changelog to ``releases/<version>/``.
- :mod:`release.build`: stage outputs -> ``release/<version>/`` (Parquet per config and split, dataset card,
  ``croissant.json``, ``manifest.json``, ``CHANGELOG.md``), gated before it is renamed into place; its steps:
  :mod:`release.inputs` (the stage folders and the previous release, read), :mod:`release.tables` (one table per
  config and split: the Syn split, the temporal cold start), :mod:`release.manifest` (the release info and
  ``manifest.json``), :mod:`release.changelog`.
- :mod:`release.gate`: the great-expectations gate over a built release folder.
- :mod:`release.card` / :mod:`release.croissant`: the dataset card and the Croissant JSON-LD.
- :mod:`release.publish`: upload a release folder to the Hugging Face Hub, tagged with its version.
"""
