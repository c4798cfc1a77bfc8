"""Entry points that wire the stages together: the ``ecoagent`` CLI (``cli``), a release built from a run's stage
folders (``release_run``) and what the Airflow tasks share (``orchestration``, standard library only at import
time so that parsing a DAG file stays cheap). Nothing imports this package but ``dags/`` and ``benchmarks/``.
"""
