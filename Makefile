# Two commands on a fresh machine:  make html   and   make test
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
	$(PY) -m pytest tests

# The build's own environment: Sphinx stack, nbclient, matplotlib, pytest, playwright.
$(VENV)/.installed: envs/docs.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r envs/docs.txt
	touch $@

clean:
	rm -rf _build docs/_gen
