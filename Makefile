# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test lint typecheck unit packs bench schema docs messages clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# torch==2.13.0 is pinned in pyproject.toml: on this machine kind pip takes the local CPU wheel.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quizbot run

test: $(STAMP) lint typecheck unit packs

lint: $(STAMP)
	$(BIN)/ruff check bot sandbox tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict bot sandbox

unit: $(STAMP)
	$(BIN)/pytest

packs: $(STAMP)
	$(BIN)/quizbot pack validate --run --strict content/packs/*

bench: $(STAMP)
	$(BIN)/python bench/core_bench.py
	$(BIN)/python bench/sandbox_bench.py

schema: $(STAMP)
	$(BIN)/python -c 'from bot.core.packs.schema import render; print(render(), end="")' > content/schema/pack.schema.json

# The translations: extract every text into the template, merge it into each language's catalog,
# compile the .mo files (committed, so a fresh clone runs without this step; a test checks they are current).
KEYWORDS := -k _ -k N_ -k L_ -k M_ -k NC_:1c,2 -k ngettext:1,2 -k pgettext:1c,2
messages: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg --no-default-keywords $(KEYWORDS) --no-location --sort-output \
		--project QuizBot --copyright-holder "QuizBot authors" -o bot/locales/quizbot.pot .
	$(BIN)/pybabel update -i bot/locales/quizbot.pot -d bot/locales -D quizbot --no-fuzzy-matching --ignore-obsolete
	$(BIN)/pybabel compile -d bot/locales -D quizbot --statistics

# The documentation site (mkdocs-material) into site/; --strict fails on a broken link or a missing page.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf site $(VENV) .pytest_cache .mypy_cache .ruff_cache
