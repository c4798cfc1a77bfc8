"""Render the results page, ``docs/results.md``, from the records in ``docs/results/`` (or check that it is their
rendering): the command a person runs after a benchmark wrote its record.

    .venv/bin/python benchmarks/record.py            # render the page
    .venv/bin/python benchmarks/record.py --check    # exit 1 when the page is not the rendering (tests/test_docs.py)

The records' code (writing one, checking one, rendering the page) is ``benchmarking/record.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a file: this checkout's packages

from benchmarking.record import main

if __name__ == "__main__":
    main()
