"""What the benchmark scripts share, as code: the scripts under ``benchmarks/`` and the tests import it.

The scripts stay scripts (``python benchmarks/NAME.py``, each run as a person runs it); what more than one of them
needs, and every part of a script that a test calls on its own, lives here, so that no test loads a script by its
path to reach inside it. An entry-point package (floor 4, docs/architecture.md "Floors"): it imports the pipeline's
packages and nothing of ours imports it but ``benchmarks/`` and ``tests/``. Not installed with the project: the
scripts and the tests put the repository root on ``sys.path``, as for ``tests``.
"""
