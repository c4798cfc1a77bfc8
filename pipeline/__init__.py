"""Entry points that wire the stages together: the stage list (``stages``), the ``ecoagent`` CLI (``cli``) and what
the Airflow tasks share (``orchestration``, standard library only at import time so that parsing a DAG file stays
cheap). Nothing imports this package but ``dags/``, ``benchmarks/`` and the tests.
"""
