# The two README commands: `make run` (the main job on the embedded default) and `make test`.
# Both create the virtual environment on first use, so a fresh clone needs nothing else.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TEST_STAMP := $(VENV)/.installed-test-stamp
ARGS ?=

.PHONY: setup run test docs lint bench-crawl

# torch goes first, pinned: it then resolves to the local CPU wheel instead of a multi-GB CUDA build.
# `make run` installs what the pipeline needs; `make test` adds the test, S3, Celery and docs tools on top.
# --no-compile: Python compiles a module when it is first imported, so a run pays only for the modules it imports
# instead of pip compiling all of them (Airflow's thousands) up front.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile torch==2.13.0
	$(BIN)/python -m pip install --quiet --no-compile -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(TEST_STAMP)

setup: $(STAMP)

# Exit code 3 means a partial crawl (some packages recorded errors, listed in the summary):
# the catalog is still written, so the main job reports it and succeeds.
run: $(STAMP)
	$(BIN)/ecoagent run $(ARGS) || test $$? -eq 3

# The documentation site (mkdocs.yml, docs/) into build/site/ (ignored); --strict: a broken link or anchor fails.
DOCS_BUILD := NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir build/site

test: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(DOCS_BUILD)
	HF_HUB_OFFLINE=1 $(BIN)/pytest -q $(ARGS)

docs: $(TEST_STAMP)
	$(DOCS_BUILD)

bench-crawl: $(STAMP)
	$(BIN)/python benchmarks/crawl.py $(ARGS)
