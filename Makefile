# The OCG rulings handbook.  `make help` lists the targets.
# Every setting below can be overridden: make html SPHINXOPTS=-v CARDS=other.tsv

PYTHON      ?= python3
VENV        ?= .venv
SOURCEDIR   ?= source
CONFDIR     ?= .
BUILDDIR    ?= _build
JOBS        ?= auto
SPHINXOPTS  ?=
# a card registry other than conf.py's handbook_cards (either format)
CARDS       ?=
PYTEST_ARGS ?=

BIN         := $(VENV)/bin
SPHINXBUILD := $(BIN)/sphinx-build
STAMP       := $(VENV)/.installed
ALLOPTS      = -c $(CONFDIR) -j $(JOBS) $(if $(CARDS),-D handbook_cards=$(abspath $(CARDS))) $(SPHINXOPTS)

.DEFAULT_GOAL := help
.PHONY: help venv html test clean

help:
	@echo "make html    build the site into $(BUILDDIR)/html (warnings are errors)"
	@echo "make test    build, then run the test suite"
	@echo "make venv    create or update $(VENV) from requirements.txt"
	@echo "make clean   remove $(BUILDDIR)"
	@echo "Variables: PYTHON VENV SOURCEDIR CONFDIR BUILDDIR JOBS SPHINXOPTS CARDS PYTEST_ARGS"

# The virtual environment is (re)made whenever requirements.txt changes.
venv: $(STAMP)
$(STAMP): requirements.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

html: $(STAMP)
	$(SPHINXBUILD) -b html -W --keep-going $(ALLOPTS) $(SOURCEDIR) $(BUILDDIR)/html

test: html
	$(BIN)/python -m pytest $(PYTEST_ARGS) tests

clean:
	rm -rf $(BUILDDIR)
