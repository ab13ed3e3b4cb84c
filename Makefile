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
# make fuzz: how many generated pages and registries (make test builds 10, with a fixed seed)
FUZZ_EXAMPLES ?= 300
# make test SPEED=off: the suite without the speed package (handbook.speed: conf.py's
# extensions without it, and every test root without it), as CI also runs it
SPEED       ?= on
# make test-next's own venv: the newest Sphinx, docutils and furo, outside the pins
NEXT_VENV   ?= .venv-next
# the pages make fix and make autolink rewrite (default: every page of SOURCEDIR)
FILES       ?=
# make check NOTES=each: every note on its own line (default: grouped by kind)
NOTES       ?=
# the language of a build: make html LANGUAGE=zh_TW builds into $(BUILDDIR)/html/zh_TW;
# empty: conf.py's language (zh_CN), into $(BUILDDIR)/html
LANGUAGE    ?=
# the catalogs make intl-update and intl-stat work on (default: every language in LOCALEDIR)
LANGUAGES   ?=
# the translated editions make html-all builds beside the default one
TRANSLATIONS ?= zh_TW
# Sphinx tags (-t) of a build: make html TAGS=current builds the "current rulings
# only" edition (no overturned ruling; _ext/handbook/publishing/editions.py) into
# $(BUILDDIR)/html/current
TAGS        ?=
# the editions make html-all builds beside the full one, each with its translations
EDITIONS    ?= current
# the catalogs: the handbook's locale_dir (SOURCEDIR/handbook.toml), else conf.py's
# handbook_locale_dir (this project's locale/)
LOCALEDIR   ?= $(call SETTING,handbook_locale_dir)
# the published site's address (html_baseurl: canonical links, og:url, sitemap, feed,
# 404 page); empty: conf.py's (Read the Docs' address, else none: those are left
# out).  A translated site's is BASEURL<lang>/, like its folder.
BASEURL     ?=
# the sidebar's links to the same page in the other editions and languages: only
# where they are built too (make html-all sets 1; a plain make html builds one of
# them, and its links to the others would be dead).  An environment variable
# (handbook_switchers, _ext/handbook/core/switchers.py), not -D: a conf.py of
# the handbook's own may not load that extension
SWITCHERS   ?= 0
# make preview's port; make bench's options (tools/bench.py --help)
PORT        ?= 8000
# make preview's -j: an edit re-reads a page or two, which two processes only slow down
PREVIEW_JOBS ?= 1
BENCH_ARGS  ?=
# make linkcheck-changed: the revision whose changes are checked (tools/linkcheck_changed.py)
BASE        ?= origin/main
# make check-ci: the workflows audited (tools/check_ci.py)
CI_WORKFLOWS ?= .github/workflows

BIN         := $(VENV)/bin
SPHINXBUILD := $(BIN)/sphinx-build
STAMP       := $(VENV)/.installed
EDITION_DIR  = $(if $(filter current,$(TAGS)),current)
ALLOPTS      = -j $(JOBS) $(BUILDOPTS)
BUILDOPTS    = -c $(CONFDIR) $(if $(CARDS),-D handbook_cards=$(abspath $(CARDS))) \
               $(if $(LANGUAGE),-D language=$(LANGUAGE)) $(foreach tag,$(TAGS),-t $(tag)) \
               $(if $(and $(LANGUAGE),$(filter-out file,$(origin LOCALEDIR))),-D handbook_locale_dir=$(abspath $(LOCALEDIR))) \
               $(if $(BASEURL),-D html_baseurl=$(patsubst %/,%,$(BASEURL))/$(if $(EDITION_DIR),$(EDITION_DIR)/)$(if $(LANGUAGE),$(LANGUAGE)/)) \
               $(SPHINXOPTS)
HTMLDIR      = $(BUILDDIR)/html$(if $(EDITION_DIR),/$(EDITION_DIR))$(if $(LANGUAGE),/$(LANGUAGE))
# where Sphinx builds before the changed files are published into HTMLDIR
STAGEDIR     = $(BUILDDIR)/staging/html$(if $(LANGUAGE),-$(LANGUAGE))$(if $(EDITION_DIR),-$(EDITION_DIR))
# the registry a build of SOURCEDIR with CONFDIR uses: CARDS, else the cards of the
# handbook's SOURCEDIR/handbook.toml, else conf.py's (tools/handbook_settings.py, standard
# library only); for the targets that do not build (make preview, make intl-zh_TW)
SETTING      = $(shell $(PYTHON) tools/handbook_settings.py --srcdir '$(SOURCEDIR)' \
                   --confdir '$(CONFDIR)' $(if $(CARDS),--cards '$(CARDS)') $(1))
REGISTRY     = $(or $(call SETTING,handbook_cards), \
                   $(error cannot tell the card registry of $(SOURCEDIR): see above))

# make splits a value at its spaces: a folder with a space in its path would be
# passed on as two arguments (an adopter's round trip: Sphinx read the folder
# above the handbook's and wrote into this one).  Said at once, with the way out.
SPACED := $(firstword $(foreach v,SOURCEDIR CONFDIR BUILDDIR CARDS $(if $(filter file,$(origin LOCALEDIR)),,LOCALEDIR) VENV,$(if $(word 2,$($(v))),$(v))))
ifneq ($(SPACED),)
$(error $(SPACED) holds a space ('$($(SPACED))'), which make cannot pass on as one path: give a path without spaces, e.g. a link to it, ln -s '$($(SPACED))' /tmp/handbook-$(shell echo $(SPACED) | tr A-Z a-z)$(suffix $(lastword $($(SPACED)))))
endif

# A tag no edition and no page knows (TAGS=curent) built the full edition over the
# published one (an adopter's round trip): said at once.
UNKNOWN_TAG := $(firstword $(foreach tag,$(filter-out current,$(TAGS) $(EDITIONS)),$(if $(shell grep -rlw --include='*.rst' -e 'only::.*$(tag)' '$(SOURCEDIR)' 2>/dev/null | head -1),,$(tag))))
ifneq ($(UNKNOWN_TAG),)
$(error TAGS or EDITIONS holds '$(UNKNOWN_TAG)', which no edition and no page's .. only:: knows: the editions are current (TAGS=current))
endif

# make -C <this folder> resolves a relative path here, not in the folder it was
# typed in (an adopter's round trip: make -C <clone> check SOURCEDIR=source checked
# this project's pages).  Where both folders have it, make stops and says so.
ELSEWHERE := $(if $(filter-out $(CURDIR),$(PWD)),$(firstword $(foreach v,SOURCEDIR CONFDIR BUILDDIR CARDS LOCALEDIR,$(if $(and $(filter command line,$(origin $(v))),$(filter-out /%,$($(v))),$(wildcard $(PWD)/$($(v)))),$(v)))))
ifneq ($(ELSEWHERE),)
$(error $(ELSEWHERE)=$($(ELSEWHERE)) is read in $(CURDIR), where make -C runs, not in $(PWD), where you are: give an absolute path, $(ELSEWHERE)=$(abspath $(PWD)/$($(ELSEWHERE)))$(if $(wildcard $(CURDIR)/$($(ELSEWHERE))), or $(ELSEWHERE)=$(abspath $(CURDIR)/$($(ELSEWHERE)))))
endif

.DEFAULT_GOAL := help
.PHONY: help venv html test clean check fix autolink linkcheck epub pdf browser-deps
.PHONY: html-all gettext intl-update intl-zh_TW intl-stat preview bench
.PHONY: check-ci linkcheck-changed fuzz test-next

help:
	@echo "make html    build the site into $(BUILDDIR)/html (warnings are errors)"
	@echo "             LANGUAGE=zh_TW: the translated site, into $(BUILDDIR)/html/zh_TW"
	@echo "             TAGS=current: current rulings only (no overturned ones), into $(BUILDDIR)/html/current"
	@echo "make html-all  the site and its translations ($(TRANSLATIONS)), also as editions ($(EDITIONS))"
	@echo "make gettext the message catalogs (.pot) of the pages, into $(BUILDDIR)/gettext"
	@echo "make intl-update  create or update $(LOCALEDIR)/<lang>/LC_MESSAGES/*.po (LANGUAGES=\"zh_TW en\")"
	@echo "make intl-zh_TW   update the zh_TW catalogs, convert what no one translated (OpenCC)"
	@echo "make intl-stat    per language and page, the share of translated messages"
	@echo "make test    run the test suite, which builds the handbook (browser tests where Chromium is)"
	@echo "             SPEED=off: without the speed package (_ext/handbook/speed/), as CI runs it too"
	@echo "make fuzz    the property tests, longer: FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) generated pages and registries"
	@echo "make test-next  the suite against the newest Sphinx, docutils and furo, outside the pins"
	@echo "             (its own venv, NEXT_VENV; the speed package off): CI's canary"
	@echo "make epub    the whole handbook as an EPUB: $(BUILDDIR)/epub/handbook.epub"
	@echo "make pdf     the whole handbook as a PDF: $(BUILDDIR)/latex/handbook.pdf"
	@echo "             (installs TeX Live xetex and Noto CJK fonts if missing; root)"
	@echo "make browser-deps  install Chromium for the browser tests (root; CI does)"
	@echo "make check   every problem, one line each at file:line; writes nothing, offline"
	@echo "             (NOTES=each: every note on its own line)"
	@echo "make fix     apply every mechanical fix make check describes (FILES, default: every"
	@echo "             page, and the registry); changes nothing else, prints each change"
	@echo "make autolink  only link the plain 「卡名」 of FILES (default: every page)"
	@echo "make linkcheck check the external links (network; not part of make test)"
	@echo "make linkcheck-changed  check the external links on lines changed since BASE=$(BASE) (network)"
	@echo "make check-ci  audit the GitHub workflows (zizmor, workflow schema); offline, part of make test"
	@echo "make preview serve the site on http://127.0.0.1:$(PORT), rebuilding what an edit touches"
	@echo "make bench   build a synthetic handbook at scale; compare with plain Sphinx (BENCH_ARGS)"
	@echo "make venv    create or update $(VENV) from requirements.txt"
	@echo "make clean   remove $(BUILDDIR)"
	@echo "Variables: PYTHON VENV SOURCEDIR CONFDIR BUILDDIR JOBS SPHINXOPTS CARDS PYTEST_ARGS FILES NOTES"
	@echo "           LANGUAGE LANGUAGES TRANSLATIONS LOCALEDIR BASEURL SWITCHERS PORT PREVIEW_JOBS BENCH_ARGS TAGS EDITIONS"
	@echo "           BASE CI_WORKFLOWS FUZZ_EXAMPLES SPEED NEXT_VENV"

# The virtual environment is (re)made whenever requirements.txt or constraints.txt
# changes: requirements.txt pins what the project uses, constraints.txt everything.
venv: $(STAMP)
$(STAMP): requirements.txt constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt -c constraints.txt
	@touch $@

# Sphinx builds into STAGEDIR; when the build succeeded, the files whose bytes
# changed are published into HTMLDIR, and the files that are gone removed: a
# failed or killed build leaves the published site as it was, and one build
# runs at a time in BUILDDIR (tools/build_html.py; README, "Checking").
# The doctrees stay out of the folder that is published.
html: $(STAMP) $(if $(filter-out zh_CN,$(LANGUAGE)),own-catalogs)
	HANDBOOK_SWITCHERS=$(SWITCHERS) $(BIN)/python tools/build_html.py --site $(HTMLDIR) --lock $(BUILDDIR)/.lock -- \
		-b html -W --keep-going $(ALLOPTS) \
		-d $(BUILDDIR)/doctrees$(if $(LANGUAGE),-$(LANGUAGE))$(if $(EDITION_DIR),-$(EDITION_DIR)) \
		$(SOURCEDIR) $(STAGEDIR)

# -- Translations (README, "Translations"; _ext/handbook/translations/) ---------------
# One catalog per page, plus handbook.pot: the texts the extensions generate, _('…'),
# from the modules whose _ is the handbook catalog's (not Sphinx's own).
HANDBOOK_TEXTS = $(shell grep -rl --include="*.py" "get_translation('handbook')" _ext/handbook)
html-all: SWITCHERS = 1
html-all: $(if $(TRANSLATIONS),own-catalogs) html
	$(foreach lang,$(TRANSLATIONS),$(MAKE) html SWITCHERS=1 LANGUAGE=$(lang) &&) true
	$(foreach tag,$(EDITIONS),$(MAKE) html SWITCHERS=1 TAGS=$(tag) && \
		$(foreach lang,$(TRANSLATIONS),$(MAKE) html SWITCHERS=1 TAGS=$(tag) LANGUAGE=$(lang) &&)) true

gettext: $(STAMP)
	$(SPHINXBUILD) -b gettext -W --keep-going $(ALLOPTS) $(SOURCEDIR) $(BUILDDIR)/gettext
	$(BIN)/pybabel -q extract --no-default-keywords -k _ --no-location --sort-by-file \
		-o $(BUILDDIR)/gettext/handbook.pot $(HANDBOOK_TEXTS)

# Another handbook's catalogs are its own: its SOURCEDIR with this project's
# locale/ would rewrite this project's catalogs, and its translated edition
# would be translated by them (an adopter's round trip).  Its own: locale_dir in
# its handbook.toml, or LOCALEDIR=.
own-catalogs:
	$(if $(and $(filter file,$(origin LOCALEDIR)),$(filter-out $(CURDIR)/source,$(abspath $(SOURCEDIR))),$(filter $(CURDIR)/locale,$(abspath $(LOCALEDIR)))),\
	$(error SOURCEDIR $(SOURCEDIR) is another handbook than this project's, whose catalogs are locale/: give it its own, locale_dir = '$(OWN_LOCALE)' in $(SOURCEDIR)/handbook.toml for example (or LOCALEDIR=$(abspath $(SOURCEDIR)/$(OWN_LOCALE)))))
# beside the pages' folder, or in it where it is its repository's top (an adopter's
# round trip: ../locale was outside its repository)
OWN_LOCALE = $(if $(wildcard $(abspath $(SOURCEDIR))/.git),locale,../locale)

intl-update: own-catalogs gettext
	$(BIN)/python tools/po_strings.py $(LOCALEDIR)
	$(BIN)/sphinx-intl update -p $(BUILDDIR)/gettext -d $(LOCALEDIR) \
		$(foreach lang,$(LANGUAGES),-l $(lang))

# The Traditional Chinese edition: catalogs updated, then every message no one
# has translated converted by OpenCC (flag opencc), the registry's zh_TW aliases too
# (the handbook's: REGISTRY).
intl-zh_TW: own-catalogs $(STAMP)
	$(MAKE) intl-update LANGUAGES=zh_TW
	$(BIN)/python tools/zh_tw.py --locale-dir $(LOCALEDIR) --registry '$(REGISTRY)' \
		--srcdir $(SOURCEDIR) --conf $(CONFDIR)/conf.py

intl-stat: own-catalogs $(STAMP)
	$(BIN)/python tools/intl_stat.py --locale-dir $(LOCALEDIR) $(LANGUAGES)

# The suite builds the handbook itself, once for every test that reads it, the
# browser tests (tests/browser/) too (tests/conftest.py; HANDBOOK_SITE=<a built
# site> to test that one instead), on one pytest-xdist worker per core (-n auto;
# PYTEST_ARGS=-n0: none).  Screenshots go to $(BUILDDIR)/browser-screenshots;
# -rs says why the browser tests are skipped where Chromium is missing.
test: $(STAMP) check-ci
	HANDBOOK_SPEED=$(SPEED) HANDBOOK_SCREENSHOTS=$(abspath $(BUILDDIR))/browser-screenshots \
		$(BIN)/python -m pytest -rs -n auto $(PYTEST_ARGS) tests

# The property tests of tests/test_properties.py, longer: FUZZ_EXAMPLES pages and
# registries from the markup alphabet, a new seed each run (printed with a failure).
fuzz: $(STAMP)
	HANDBOOK_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -x -q -n0 \
		-p no:cacheprovider --hypothesis-show-statistics tests/test_properties.py

# The canary: the suite against the newest Sphinx (whatever its own requirements
# allow), the newest docutils (even outside Sphinx's range) and the newest furo
# (its markup, which publishing/theme.py translates and the axe tests check) the
# package index offers, every other package as requirements.txt pins it, in a
# venv of its own.
# The speed package is off: its parts are guarded by the versions they were
# written for (handbook.speed.ALLOWED) and fail loudly on others.  CI runs it as
# a job that may fail without blocking: an upgrade's breakage is known before
# anyone bumps a pin.
test-next:
	@test -x $(NEXT_VENV)/bin/python || $(PYTHON) -m venv $(NEXT_VENV)
	grep -v -E '^(sphinx|docutils|furo)==' requirements.txt > $(NEXT_VENV)/requirements-next.txt
	$(NEXT_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade \
		-r $(NEXT_VENV)/requirements-next.txt sphinx furo
	$(NEXT_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --upgrade \
		--no-deps docutils
	@$(NEXT_VENV)/bin/python -c 'import sphinx, docutils, furo; \
		print("make test-next: Sphinx", sphinx.__version__, "docutils", docutils.__version__, \
		      "furo", furo.__version__)'
	HANDBOOK_SPEED=off HANDBOOK_SCREENSHOTS=$(abspath $(BUILDDIR))/browser-screenshots-next \
		$(NEXT_VENV)/bin/python -m pytest -rs -n auto $(PYTEST_ARGS) tests

# -- Downloads: EPUB and PDF (conf.py, "EPUB and PDF") --------------------------------
# EPUB wants a version: the date of the last commit.  Each builder keeps its
# own doctrees, out of the folder that is zipped.
# The handbook's last commit (its repository's, not this project's: an adopter's
# round trip); each language and edition a book of its own, in a folder of its own.
EDITION      = $(shell git -C '$(SOURCEDIR)' log -1 --format=%cd --date=format:%Y.%m.%d -- . 2>/dev/null | grep . || date +%Y.%m.%d)
EPUBDIR      = $(BUILDDIR)/epub$(if $(EDITION_DIR),/$(EDITION_DIR))$(if $(LANGUAGE),/$(LANGUAGE))
epub: $(STAMP) $(if $(filter-out zh_CN,$(LANGUAGE)),own-catalogs)
	HANDBOOK_SWITCHERS=0 $(SPHINXBUILD) -b epub -W --keep-going $(ALLOPTS) \
		-d $(BUILDDIR)/doctrees-epub$(if $(LANGUAGE),-$(LANGUAGE))$(if $(EDITION_DIR),-$(EDITION_DIR)) \
		-D version=$(EDITION) $(SOURCEDIR) $(EPUBDIR)

pdf: $(STAMP)
	$(call debian-packages,$(PDF_PACKAGES))
	$(SPHINXBUILD) -b latex -W --keep-going $(ALLOPTS) -d $(BUILDDIR)/doctrees-latex \
		$(SOURCEDIR) $(BUILDDIR)/latex
	$(MAKE) -C $(BUILDDIR)/latex all-pdf LATEXMKOPTS=-silent

browser-deps:
	$(call debian-packages,$(BROWSER_PACKAGES))

# Debian packages that only some targets need, installed when missing (as root).
PDF_PACKAGES     := texlive-xetex texlive-lang-chinese texlive-latex-recommended \
                    texlive-latex-extra texlive-fonts-recommended latexmk fonts-noto-cjk
BROWSER_PACKAGES := chromium fonts-noto-cjk
define debian-packages
@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
if [ -n "$$missing" ]; then \
	if [ "$$(id -u)" != 0 ]; then echo "missing Debian packages:" $$missing; \
		echo "install them: sudo apt-get install" $$missing; exit 1; fi; \
	echo "installing Debian packages:" $$missing; \
	apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $$missing; \
fi
endef

# Sphinx (dummy builder, fresh environment, doctrees in a temporary folder)
# and sphinx-lint; see tools/check.py.
check: $(STAMP)
	$(BIN)/python tools/check.py --srcdir $(SOURCEDIR) --confdir $(CONFDIR) -j $(JOBS) \
		$(if $(NOTES),--notes $(NOTES)) $(if $(CARDS),-D handbook_cards=$(abspath $(CARDS)))

# tools/fix.py: card names linked, https for ruling URLs, emphasis split around
# card links, repeated registry rows removed; autolink is its first fix alone.
fix: $(STAMP)
	$(BIN)/python tools/fix.py --srcdir $(SOURCEDIR) --confdir $(CONFDIR) \
		$(if $(CARDS),--cards $(CARDS)) $(FILES)

autolink: $(STAMP)
	$(BIN)/python tools/autolink.py --srcdir $(SOURCEDIR) --confdir $(CONFDIR) \
		$(if $(CARDS),--cards $(CARDS)) $(FILES)

# The only target that uses the network: linkcheck_* in conf.py.
linkcheck: $(STAMP)
	$(SPHINXBUILD) -b linkcheck $(ALLOPTS) $(SOURCEDIR) $(BUILDDIR)/linkcheck

# Only the external links on the lines changed since BASE (a pull request's):
# standard library only, so no venv needed.  The registry and the URL templates
# (FAQ, card): CARDS, else the handbook's handbook.toml, else CONFDIR's conf.py,
# as a build's (the tool reads them: tools/handbook_settings.py).
linkcheck-changed:
	$(PYTHON) tools/linkcheck_changed.py --base '$(BASE)' --srcdir '$(SOURCEDIR)' \
		--confdir '$(CONFDIR)' $(if $(CARDS),--cards '$(CARDS)')

# The GitHub workflows: zizmor (no medium or worse finding) and the workflow
# JSON schema, offline; part of make test.
check-ci: $(STAMP)
	$(BIN)/python tools/check_ci.py --dependabot .github/dependabot.yml $(CI_WORKFLOWS)

# -- Editing and measuring ----------------------------------------------------------
# Live preview (sphinx-autobuild): each change runs an incremental build, which
# reads the edited page and rewrites it and the pages generated from every page
# (timeline, card index); an edit of the registry (the handbook's: REGISTRY)
# re-reads the pages using a changed name.  Warnings are shown, not fatal.  Its
# own build folder.  conf.py and the registry are watched through their folders:
# an editor's save that renames a new file over the old ended the watch of the
# file itself (tools/preview_watch.py).
preview: $(STAMP)
	HANDBOOK_SWITCHERS=0 $(BIN)/sphinx-autobuild -j $(PREVIEW_JOBS) $(BUILDOPTS) -d $(BUILDDIR)/doctrees-preview --port $(PORT) \
		$(shell $(PYTHON) tools/preview_watch.py --file $(CONFDIR)/conf.py --file '$(REGISTRY)' \
			--folder $(LOCALEDIR) --folder _ext --folder _static --source $(SOURCEDIR)) \
		$(SOURCEDIR) $(BUILDDIR)/preview

# A generated handbook, built by plain Sphinx (the baseline) and by this
# Makefile's targets; the table goes to $(BUILDDIR)/bench/results.md.
# BENCH_ARGS="--quick": a smoke run of a minute or two.
bench: $(STAMP)
	$(BIN)/python tools/bench.py --workdir $(BUILDDIR)/bench $(BENCH_ARGS)

clean:
	rm -rf $(BUILDDIR)
