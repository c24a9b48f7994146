# Two commands on a fresh machine:  make html   and   make test
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3.11
VENV := .envs/docs
PY := $(VENV)/bin/python
PROFILE ?=
REPEATS ?= 1
BUILD_ARGS ?=

.PHONY: html test envs clean
html: $(VENV)/.installed
	$(PY) build_docs.py $(if $(PROFILE),--profile $(PROFILE)) --repeats $(REPEATS) $(BUILD_ARGS)

envs: $(VENV)/.installed
	$(PY) build_docs.py --setup-only

test: $(VENV)/.installed
	$(PY) build_docs.py --setup-only
	$(PY) -m pytest --durations=12 tests

# The build's own environment: Sphinx stack, nbclient, matplotlib, pytest, playwright.
$(VENV)/.installed: envs/docs.txt
	$(PYTHON) -m venv $(VENV)
	# (this machine's pip repeats a harmless warning per package about its extra indexes)
	$(PY) -m pip install --disable-pip-version-check -q -r envs/docs.txt 2>&1 \
		| { grep -v "is ignored: it is neither a file nor a directory" || true; }
	touch $@

clean:
	rm -rf _build docs/_gen
