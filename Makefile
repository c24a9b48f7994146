# Two commands on a fresh machine:  make html   and   make test
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3.11
VENV := .envs/docs
PY := $(VENV)/bin/python
PROFILE ?=
REPEATS ?= 1
BUILD_ARGS ?=

.PHONY: html measure publish reference test test-fast envs lock clean
html: $(VENV)/.installed
	$(PY) build_docs.py $(if $(PROFILE),--profile $(PROFILE)) --repeats $(REPEATS) $(BUILD_ARGS)

# Measure here: set up, execute, write results/<machine>/ (no pages). Publish there: build the site from
# results folders measured elsewhere (RESULTS="a b"), executing nothing and creating no environment.
measure: $(VENV)/.installed
	$(PY) build_docs.py --measure-only $(if $(PROFILE),--profile $(PROFILE)) --repeats $(REPEATS) $(BUILD_ARGS)

RESULTS ?= results
publish: $(VENV)/.installed
	$(PY) build_docs.py $(foreach folder,$(RESULTS),--from-results $(folder)) $(if $(PROFILE),--profile $(PROFILE)) $(BUILD_ARGS)

# The reference results kept in the repository: re-measure here the whole reference (every example, check,
# conversion and lesson; older runs on this kind of machine are then removed), or the rows named
# (ROWS="cnn_cifar10/pytorch momentum"), 3 runs per benchmark row, and copy them into
# benchmarks/reference/<machine>/.
ROWS ?=
reference: $(VENV)/.installed
	$(PY) -m rosetta.build.reference --refresh --profile $(or $(PROFILE),cpu) $(or $(ROWS),--all)

envs: $(VENV)/.installed
	$(PY) build_docs.py --setup-only

# Everything: unit tests, the tiny site, smoke runs of every snippet, equivalence, browser.
test: $(VENV)/.installed
	$(PY) build_docs.py --setup-only
	$(PY) -m pytest --durations=25 tests

# On every change: no framework environment, under a minute (lint included).
test-fast: $(VENV)/.installed
	$(PY) -m pytest -q -m "not envs and not site and not browser" tests

# Resolve envs/*.txt again into envs/*.lock (every package pinned); commit the result.
lock: $(VENV)/.installed
	$(PY) build_docs.py --lock

# The build's own environment (Sphinx stack, nbclient, matplotlib, pytest, playwright, uv), from its
# lock; pip only brings uv, which installs the rest and every framework's environment.
$(VENV)/.installed: envs/docs.lock
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q $$(grep '^uv==' envs/docs.txt) 2>&1 \
		| { grep -v "is ignored: it is neither a file nor a directory" || true; }
	$(PY) -m rosetta.build.environments $(PY) envs/docs.lock
	touch $@

clean:
	rm -rf _build docs/_gen
