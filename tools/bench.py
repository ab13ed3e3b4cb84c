r"""Benchmark the handbook's toolchain against plain Sphinx on a realistic handbook (``make bench``).

Usage::

    make bench                              # the full benchmark, 3 runs of each measure
    make bench BENCH_ARGS="--quick"         # a smoke run: 10 pages, 1 FAQ page, 1 run
    make bench BENCH_ARGS="--old-baseline"  # also the old baseline, as a footnote
    make bench BENCH_ARGS="--only preview,suggest"   # some measures only
    .venv/bin/python tools/bench.py --corpus-only    # just write the corpus
    .venv/bin/python tools/bench.py --help           # every option

It prints one markdown table and writes it, with the corpus and what the
toolchain reported on it, to ``<workdir>/results.md`` (``make bench``:
``_build/bench/results.md``), ready to be quoted; every command's output is
kept in ``<workdir>/logs/``.

**The corpus** (``<workdir>/corpus/``) is generated deterministically
(``--seed``) from the real pages in ``source/``: it recombines their text
and never writes ruling text of its own.  By default: 63 documents, 5.1 MB,
about 15,000 rulings (11,500 of them on the yearly FAQ pages), 39,000 card
references to 5,500 of the 7,000 names.

* ``source/ch1/`` … (``--chapters``, 6): chapters of chapter pages
  (``--pages``, 48 in all), each chapter with its ``index.rst`` and toctree.
  A page is a page title and sections of the real pages taken in order from
  a random starting section (a section: a heading and its text up to the
  next heading, whatever its level; all become one level, a number appended
  to each title so that every title is unique) until the page has its share
  of ``--size-mb`` (2.0).  Every 「`卡名`_」 becomes a registry name (the
  same one for the same card within a section), drawn with a Zipf-like
  popularity, a third of the time written in its spelling-variant form
  where it has one.  Each real label is kept on the first copy of its
  section; a ``:ref:`` to a label that no page defines and ``conf.py`` does
  not plan goes to ``调整中`` (planned); links to section titles
  (```标题`_``, ``标题_``) become their text; footnotes whose references
  and definitions were separated are dropped.
* ``source/faq/``: yearly FAQ pages (``--faq-pages``, 5; the last one 2024)
  of 0.8 to 1.2 × ``--faq-rulings`` (2,300) rulings each, in the shape
  existing handbooks keep them (issue 31; :mod:`handbook.rulings.days`): the
  year as the title, a page-level ``.. role:: strike``, a paragraph of notes
  (a real page's introduction), month sections ``YY/MM`` labelled
  ``faq-YYYY-MM`` (which the FAQ index ``:ref:``\ s), day sections ``M/D`` of
  3 to 12 rulings, in groups of 1 to 6 lines under a source header (``|
  邮件：``, ``| wiki:``, ``| 数据库：``).  A ruling is one line-block line: the
  text of one ruling of the real pages (a line cut after each date), its
  cards drawn as above; most lines carry no date (their day dates them),
  4 in 10 under 数据库 and 1 in 20 elsewhere an inline FAQ date link, a third
  of them the legacy ``\ `24/3/5 <https://…fid=…>`__``.  7 % are struck
  through whole, their card names inside as plain 「卡名」; 3 % of the days
  hold an ``.. attention::`` that says they are outdated, with a ``:ref:``
  to a chapter section.  The largest page is about 700 KB, 2,800 rulings.
* ``source/card-index.rst``, ``source/timeline.rst``: copied as they are.
* ``links.rst``: the registry as an existing handbook's legacy link file,
  ``--names`` (7,000) rows ``.. _`卡名`: https://ygocdb.com/card/name/卡名``
  (a series: ``https://ygocdb.com/?search=卡名``): the real registry's
  names, then synthetic ones (a real name, a middle dot and one more
  character).  3 % of the rows are spelling variants (a name with spaces or
  middle dots again without them, the same URL); 5 rows keep the spaces of
  their name in the URL (the others write ``%20``).
* ``baseline/conf.py`` and ``old-baseline/conf.py``: the baselines'.

**The baseline** is plain Sphinx built from the same ``source/`` the way an
existing handbook's ``conf.py`` builds it: furo, ``language = 'zh_CN'``,
``html_search_language = 'zh'`` (jieba), ``html_copy_source = False`` (as
ours), and a ``source-read`` handler that parses ``links.rst`` once and
appends to each page exactly the ``.. _`卡名`: url`` rows of the names the
page references.  It gives the corpus' own markup its plainest meaning:
``:ruling:`` a link (or the bare date), ``:strike:`` an inline with a class,
the ``card-index`` and ``ruling-timeline`` directives nothing; unresolved
``:ref:`` (the planned sections) are not reported.  Its clean ``-j 1`` build
is the 1.00 of the table.  ``--old-baseline`` also builds the corpus with
the whole registry appended to every page (the former baseline), reported
in a footnote only.

**The measures**, each the median of ``--runs`` runs (3; peak memory: the
largest of the runs); before each timed command, what the commands before
wrote is flushed to disk (``os.sync``), so that no run pays for another's
writing back.  Our toolchain always runs through the Makefile, as a
user runs it (``make html SOURCEDIR=<corpus>/source CARDS=<corpus>/links.rst``,
each measure with its own ``BUILDDIR``, without make bench's own command
line variables):

* clean ``make html``, ``JOBS=1`` and ``JOBS=auto``, each in a fresh folder,
  in rounds with the baseline (baseline, ``-j 1``, ``-j auto``, then again):
  a machine whose speed drifts during the bench weighs on the baseline and
  on ours alike, and the notes give each round's ratios;
* peak memory: the largest process RSS of our clean builds (``wait4``: the
  largest of a command and its descendants), against the baseline's;
* no-change rebuild, one ruling edited, one registry name changed: on one
  build folder (``JOBS=1``, after an untimed clean build), ``make html``
  after nothing changed; after a few words were inserted into the first
  dated ruling of a chapter page (one line; its ratio is to OUR clean
  ``-j 1`` build); after the URL of a name that about 3 pages use was
  changed in ``links.rst``.  The notes give the documents Sphinx read and
  wrote and the files of the HTML folder that changed (mtime or size),
  which must be none after no change;
* one ruling edited on the largest yearly FAQ page (issue 31: an editor
  edits the largest page): on the same build folder, a few words inserted
  into a line in the middle of the page, then ``make html`` as users run it
  (its default ``JOBS=auto``); the seconds, against 2.5 s;
* ``make check`` (its default ``JOBS``);
* edit to preview: ``make preview`` on the corpus with a free ``PORT`` and
  its own ``BUILDDIR``; once the first build is served, a chapter page is
  saved with a new word in one line and the page is fetched over HTTP every
  50 ms until the word shows: the seconds from the save.  Each run waits
  for the rebuild to end; then the server (its process group) is stopped.
  The same on the largest yearly FAQ page (a line in its middle);
* card pages (issue 13): in each run, our clean ``-j 1`` build with them,
  then without them (``handbook_card_pages = False``); the median of the
  runs' shares, each pair timed together;
* page weight (issue 33): each content page of the corpus (every page of
  ``source/`` but the card index and the timeline) as our ``make html`` and
  the baseline write it: its bytes gzipped (``gzip -6``) and its DOM nodes
  (elements and text nodes, as :class:`DomCount` parses them), ours over the
  baseline's; the table gives the largest ratio of each, and the notes the
  median and the heaviest page.  And the largest page our build generates
  (timeline, card index, card pages and every other page that is not a page
  of ``source/``), in bytes of HTML.  Each HTML folder is the one a measure
  before built, else built once here (untimed);
* one did-you-mean: ``Registry.suggest(name)`` (``did_you_mean`` where the
  registry calls it so) of ``handbook.cards.registry``, over ``links.rst``
  read with its ``load``, for 50 unknown names: 25 one-character typos of
  registry names, 25 pieces of the real pages' text; the median
  milliseconds per call (the first and the slowest call are in the notes);
* the search (issue 33; ``tools/search_budget.py``, its docstring says how):
  on our ``-j auto`` site of the corpus, in Chromium with the CPU 4× slower,
  eight cold queries (a card, part of a name, two cards, a date written two
  ways, a phrase, a Traditional spelling, nothing found): the first ruling
  after opening ``search.html?q=…``, the bytes downloaded, the total
  blocking time; then each keystroke of the same queries typed, warm.  A
  corpus of 15,000 rulings: ``--faq-rulings 5600``.

A run of our toolchain that exits non-zero (``make html`` fails on any
warning, ``-W --keep-going``; ``make check`` on any problem) is timed all
the same and marked in the notes; what it reported is summarised under the
table (by kind and severity, with examples).  Each measure is compared with
its target from issue 12: met or missed.

Seconds are wall-clock time: other work on the machine makes them
meaningless.  On 2 cores the full run takes about 20 to 30 minutes, the old
baseline about half an hour more, ``--quick`` one or two minutes.
``--only`` builds the baseline only when a ratio needs it.
"""


from __future__ import annotations

import argparse
import ast
import bisect
import calendar
import contextlib
import gzip
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import unicodedata
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

from handbook.cards.registry import fold, load  # noqa: E402

CONTENT_PAGES = ['effect-processing', 'negation', 'effect-types', 'face-down-banish']
GENERATED_PAGES = ['card-index', 'timeline']
CARD_URL = 'https://ygocdb.com/card/name/{}'
SERIES_URL = 'https://ygocdb.com/?search={}'
FAQ_URL = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={}&request_locale=ja'
LAST_FAQ_YEAR = 2024

_CARD = re.compile(r'「`([^`]+)`_」')
_RULING_ROLE = re.compile(r'\\ :ruling:`[^`]*`')
_REF = re.compile(r':ref:`([^`<]+)`')
_TITLE_LINK = re.compile(r'(?<!「)`([^`<]+)`_(?!_)')
_SIMPLE_LINK = re.compile(r'(?<=\\ )([^\s`\\*]+)_(?=\\ |\s|$)', re.M)
_UNDERLINE = re.compile(r'^([=\-~^"\'#*+])\1{2,}\s*$')
_LABEL_LINE = re.compile(r'^\.\. _([^`:][^:]*|`[^`]+`):\s*$')
_LINE_BLOCK_LINE = re.compile(r'^\s*(?:- )?\| (.+)$')


# -- the real pages ------------------------------------------------------------------

@dataclass
class Section:
    """A heading of a real page (None: the page's text before its first
    heading), the label before it, and its text up to the next heading."""

    label: str | None
    title: str | None
    body: str


def sections_of(text: str) -> tuple[str, list[Section]]:
    """The page's title and its sections, in order."""
    lines = text.split('\n')
    title = ''
    if len(lines) > 2 and _UNDERLINE.match(lines[0]) and _UNDERLINE.match(lines[2]):
        title, lines = lines[1].strip(), lines[3:]
    heads = [i for i in range(len(lines) - 1)
             if lines[i].strip() and not lines[i][0].isspace() and _UNDERLINE.match(lines[i + 1])
             and not _UNDERLINE.match(lines[i]) and (i == 0 or not lines[i - 1].strip())]
    starts, labels = [], []
    for h in heads:
        j = h - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        m = _LABEL_LINE.match(lines[j]) if j >= 0 else None
        starts.append(j if m else h)
        labels.append(m[1].strip('`') if m else None)
    out = [Section(None, None, '\n'.join(lines[:starts[0] if starts else len(lines)]))]
    for n, h in enumerate(heads):
        end = starts[n + 1] if n + 1 < len(heads) else len(lines)
        out.append(Section(labels[n], lines[h].strip(), '\n'.join(lines[h + 2:end])))
    return title, [s for s in out if s.title or s.body.strip()]


def without_stray_footnotes(body: str) -> str:
    """*body* without its autonumbered footnotes unless references and
    definitions are all there."""
    refs = body.count('[#]_')
    defs = len(re.findall(r'^\s*\.\. \[#\]', body, re.M))
    if refs == defs:
        return body
    body = re.sub(r'\s*\[#\]_', '', body)
    out, skipping = [], None
    for line in body.split('\n'):
        m = re.match(r'^(\s*)\.\. \[#\]', line)
        if m:
            skipping = len(m[1])
            continue
        if skipping is not None and line.strip() and len(line) - len(line.lstrip()) > skipping:
            continue
        skipping = None
        out.append(line)
    return '\n'.join(out)


def ruling_texts(sections: list[Section]) -> list[str]:
    """The text of every ruling of the real pages: each line-block line cut
    after each of its dates, without the dates."""
    out = []
    for section in sections:
        for line in section.body.split('\n'):
            m = _LINE_BLOCK_LINE.match(line)
            if not m:
                continue
            for piece in _RULING_ROLE.split(m[1]):
                piece = re.sub(r'\s*\[#\]_', '', piece).strip()
                if (len(piece) >= 15 and piece.count('「') == piece.count('」')
                        and piece.count('『') == piece.count('』') and not piece.endswith('\\')
                        and '`__' not in piece and not piece.startswith(('例', '※'))):
                    out.append(piece)
    return out


def plain_links(text: str) -> str:
    """*text* with its links to section titles and labels (```标题`_``,
    ``标题_``) as plain text: in the corpus their targets are renamed or gone."""
    return _SIMPLE_LINK.sub(r'\1', _TITLE_LINK.sub(r'\1', text))


def planned_sections() -> set[str]:
    """``handbook_planned_sections`` of conf.py (read, not executed)."""
    tree = ast.parse((ROOT / 'conf.py').read_text(encoding='utf-8'))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', '') == 'handbook_planned_sections'
                                                for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in text)


def heading(title: str, over: bool = False) -> str:
    rule = '=' * (width(title) + 2)
    return f'{rule}\n{title}\n{rule}\n' if over else f'{title}\n{rule}\n'


# -- the corpus ----------------------------------------------------------------------

@dataclass
class Shape:
    """What to generate."""

    chapters: int
    pages: int           # chapter pages
    size_mb: float       # of the chapter pages
    faq_pages: int
    faq_rulings: int     # per FAQ page, on average
    names: int           # rows of links.rst
    seed: int = 1
    struck: float = 0.07
    legacy_dates: float = 1 / 3
    variants: float = 0.03
    spaced_urls: int = 5


@dataclass
class Corpus:
    root: Path
    source: Path = field(init=False)
    links: Path = field(init=False)
    baseline_conf: Path = field(init=False)
    old_baseline_conf: Path = field(init=False)
    size: int = 0
    docs: int = 0
    chapters: int = 0
    chapter_pages: list[str] = field(default_factory=list)  # docnames
    faq_pages: list[str] = field(default_factory=list)
    rows: int = 0
    variant_rows: int = 0
    spaced_urls: int = 0
    refs: int = 0
    names_used: int = 0
    faq_rulings: int = 0
    struck: int = 0
    dated: int = 0
    labels: int = 0
    refs_to_labels: int = 0
    renamed: str = ''          # the name the registry measure changes
    renamed_pages: int = 0
    link_rows: dict[str, str] = field(default_factory=dict)  # name -> its row

    def __post_init__(self) -> None:
        self.source = self.root / 'source'
        self.links = self.root / 'links.rst'
        self.baseline_conf = self.root / 'baseline'
        self.old_baseline_conf = self.root / 'old-baseline'

    def describe(self) -> str:
        return (f'{self.docs} documents: {len(self.chapter_pages)} chapter pages in {self.chapters} '
                f'chapters, {len(self.faq_pages)} yearly FAQ page(s) of {self.faq_rulings:,} rulings '
                f'({self.struck:,} struck through), indexes, card index, timeline; '
                f'{self.size / 1e6:.1f} MB of reStructuredText, {self.dated:,} dated rulings, '
                f'{self.refs:,} card references to {self.names_used:,} names, '
                f'{self.labels} labels and {self.refs_to_labels} :ref: to them; links.rst: '
                f'{self.rows:,} rows ({self.variant_rows} spelling variants, '
                f'{self.spaced_urls} URLs with spaces)')


def registry_names(count: int, rng: random.Random) -> list[tuple[str, str]]:
    """``(name, kind)`` of the real registry, then synthetic names up to *count*."""
    real = load(ROOT / 'cards.tsv').cards()
    names, seen = [], set()
    for card in real:
        if fold(card.name) not in seen:
            seen.add(fold(card.name))
            names.append((card.name, card.kind))
    i = 0
    while len(names) < count:
        base = real[i % len(real)]
        variant = f'{base.name}·{chr(0x4E00 + rng.randrange(0x5000))}'
        if fold(variant) not in seen:
            seen.add(fold(variant))
            names.append((variant, base.kind))
        i += 1
    return names[:count]


def spelling_variant(name: str) -> str | None:
    """The same name without its spaces (or, having none, its middle dots)."""
    if ' ' in name:
        return name.replace(' ', '')
    if '·' in name:
        return name.replace('·', '')
    return None


class Generator:
    def __init__(self, shape: Shape, root: Path) -> None:
        self.shape = shape
        self.rng = random.Random(shape.seed)
        self.corpus = Corpus(root)
        self.planned = planned_sections()
        self.kept_labels: set[str] = set()
        self.uses: dict[str, set[str]] = {}  # folded name -> docnames

    # the registry
    def write_links(self) -> None:
        shape, rng, corpus = self.shape, self.rng, self.corpus
        n_variants = round(shape.names * shape.variants)
        names = registry_names(shape.names - n_variants, rng)
        candidates = [n for n, _ in names if spelling_variant(n)]
        with_variant = set(rng.sample(candidates, min(n_variants, len(candidates))))
        spaced = [n for n, _ in names if ' ' in n]
        raw_spaces = set(rng.sample(spaced, min(shape.spaced_urls, len(spaced))))
        rows = ['.. 卡片链接：每行一个卡名及其卡片数据库地址（tools/bench.py 生成）', '']
        self.variant_of: dict[str, str] = {}
        for name, kind in names:
            template = SERIES_URL if kind == 'series' else CARD_URL
            url = template.format(name if name in raw_spaces else name.replace(' ', '%20'))
            row = f'.. _`{name}`: {url}'
            rows.append(row)
            corpus.link_rows[name] = row
            if name in with_variant:
                variant = spelling_variant(name)
                self.variant_of[name] = variant
                rows.append(f'.. _`{variant}`: {url}')
                corpus.link_rows[variant] = rows[-1]
        corpus.links.write_text('\n'.join(rows) + '\n', encoding='utf-8')
        corpus.rows = len(names) + len(with_variant)
        corpus.variant_rows = len(with_variant)
        corpus.spaced_urls = len(raw_spaces)
        self.names = [n for n, _ in names]
        # popularity: a Zipf-like law over a shuffled order
        order = self.names[:]
        rng.shuffle(order)
        self.by_rank = order
        total, self.cum = 0.0, []
        for rank in range(len(order)):
            total += 1 / (rank + 1) ** 0.8
            self.cum.append(total)

    def draw(self) -> str:
        return self.by_rank[bisect.bisect(self.cum, self.rng.random() * self.cum[-1])]

    def card_names(self, text: str, docname: str, plain: bool = False) -> str:
        """*text* with each 「`卡名`_」 a drawn registry name (one per original
        name), written 「卡名」 when *plain*."""
        chosen: dict[str, str] = {}

        def replace(m: re.Match) -> str:
            name = chosen.setdefault(m[1], self.draw())
            self.uses.setdefault(fold(name), set()).add(docname)
            if plain:
                return f'「{name}」'
            self.corpus.refs += 1
            if name in self.variant_of and self.rng.random() < 1 / 3:
                name = self.variant_of[name]
            return f'「`{name}`_」'
        return _CARD.sub(replace, text)

    # chapter pages
    def chapter_page(self, docname: str, number: int, pool: list[tuple[str, Section]],
                     intros: list[Section], budget: int) -> str:
        page_title = pool[number % len(pool)][0]
        parts = [heading(f'{page_title}（{number + 1}）', over=True)]
        if intros:
            parts.append(self.chapter_text(intros[number % len(intros)].body, docname))
        k = self.rng.randrange(len(pool))
        size = 0
        while size < budget:
            _, section = pool[k % len(pool)]
            k += 1
            text = ''
            if section.label and section.label not in self.kept_labels \
                    and section.label not in self.planned:
                self.kept_labels.add(section.label)
                text += f'.. _{section.label}:\n\n'
            text += heading(f'{section.title}（{number + 1}.{k}）') + '\n'
            text += self.chapter_text(section.body, docname)
            parts.append(text)
            size += len(text.encode())
        return '\n\n'.join(p.strip('\n') for p in parts) + '\n'

    def chapter_text(self, body: str, docname: str) -> str:
        body = without_stray_footnotes(body)
        body = self.card_names(body, docname)
        body = plain_links(body)
        return re.sub(r'[ \t]+$', '', body, flags=re.M).strip('\n')

    # FAQ pages
    def faq_page(self, docname: str, year: int, rulings: int, texts: list[str],
                 notes: list[Section]) -> tuple[str, list[str]]:
        """A yearly FAQ page as existing handbooks keep them (issue 31): the year
        as its title, a page-level ``.. role:: strike``, a paragraph of notes,
        month sections ``YY/MM`` (labelled ``faq-YYYY-MM``), day sections
        ``M/D``; under a day, groups of lines under source headers (邮件, wiki,
        数据库), most lines without a date of their own, some with an inline
        date link to the FAQ (the legacy ``\\ `YY/M/D <…>`__`` a third of the
        time, else the role), whole struck lines (their card names plain
        「卡名」); an attention note marks a few days outdated."""
        rng, corpus = self.rng, self.corpus
        parts = [heading(str(year), over=True), '.. role:: strike\n    :class: strike']
        if notes:
            parts.append(self.chapter_text(notes[rng.randrange(len(notes))].body, docname))
        labels = []
        targets = sorted(self.kept_labels)
        months = Counter(rng.randrange(1, 13) for _ in range(rulings))
        for month in range(1, 13):
            count = months[month]
            if not count:
                continue
            label = f'faq-{year}-{month:02d}'
            labels.append(label)
            section = [f'.. _{label}:\n\n' + heading(f'{year % 100:02d}/{month:02d}', over=False)]
            # the month's lines over its days, 3 to 12 a day (more where the month
            # has fewer days than that makes)
            last = calendar.monthrange(year, month)[1]
            sizes: list[int] = []
            while sum(sizes) < count:
                sizes.append(min(rng.randint(3, 12), count - sum(sizes)))
            dates = sorted(rng.sample(range(1, last + 1), min(len(sizes), last)))
            per_day = Counter()
            for i, size in enumerate(sizes):
                per_day[dates[i % len(dates)]] += size
            for day in dates:
                lines_of_day = per_day[day]
                body = []
                if targets and rng.random() < 0.03:
                    body.append('.. attention:: 这些调整已经过时，最新调整见\\ '
                                f':ref:`{rng.choice(targets)}`\\ 中的内容。')
                left = lines_of_day
                while left:
                    n = min(left, rng.randint(1, 6))
                    left -= n
                    header = rng.choices(['邮件：', 'wiki:', '数据库：'], [3, 2, 5])[0]
                    lines = [f'| {header}']
                    for _ in range(n):
                        lines.append(self.faq_line(docname, year, month, day, header, texts))
                    body.append('\n'.join(lines))
                section.append(heading(f'{month}/{day}').replace('=', '-') + '\n' + '\n\n'.join(body))
            parts.append('\n\n'.join(section))
            corpus.faq_rulings += count
        return '\n\n'.join(p.strip('\n') for p in parts) + '\n', labels

    def faq_line(self, docname: str, year: int, month: int, day: int, header: str,
                 texts: list[str]) -> str:
        """One line of a day: a ruling of the real pages, its cards drawn; an
        inline FAQ date on a fifth of the lines (most under 数据库), struck whole
        on :attr:`Shape.struck` of them."""
        rng, corpus = self.rng, self.corpus
        text = plain_links(rng.choice(texts))
        ref = ''
        if rng.random() < (0.4 if header == '数据库：' else 0.05):
            date = f'{year % 100}/{month}/{min(day + rng.randint(0, 2), calendar.monthrange(year, month)[1])}'
            url = FAQ_URL.format(rng.randrange(10000, 26000))
            ref = f'\\ `{date} <{url}>`__' if rng.random() < self.shape.legacy_dates \
                else f'\\ :ruling:`{date} <{url}>`'
        if rng.random() < self.shape.struck:
            plain = self.card_names(text, docname, plain=True)
            plain = _REF.sub(r'\1', plain).replace('\\ ', '').replace('\\', '')
            if '`' not in plain and '*' not in plain:
                corpus.struck += 1
                return f'| :strike:`{plain}`{ref}'
        return f'| {self.card_names(text, docname)}{ref}'

    def generate(self) -> Corpus:
        shape, corpus = self.shape, self.corpus
        shutil.rmtree(corpus.root, ignore_errors=True)
        corpus.source.mkdir(parents=True)
        self.write_links()

        pool: list[tuple[str, Section]] = []
        intros: list[Section] = []
        all_sections = []
        for page in CONTENT_PAGES:
            title, sections = sections_of((ROOT / 'source' / f'{page}.rst').read_text(encoding='utf-8'))
            all_sections += sections
            for section in sections:
                if section.title:
                    pool.append((title, section))
                elif section.body.strip():
                    intros.append(section)
        texts = ruling_texts(all_sections)

        pages: dict[str, str] = {}
        budget = int(shape.size_mb * 1_000_000 / max(shape.pages, 1))
        per_chapter = [shape.pages // shape.chapters + (c < shape.pages % shape.chapters)
                       for c in range(shape.chapters)]
        n = 0
        chapters = []
        for c, count in enumerate(per_chapter, start=1):
            docs = []
            for i in range(1, count + 1):
                docname = f'ch{c}/p{i:02d}'
                pages[docname] = self.chapter_page(docname, n, pool, intros, budget)
                docs.append(f'p{i:02d}')
                corpus.chapter_pages.append(docname)
                n += 1
            pages[f'ch{c}/index'] = (heading(f'第{c}章', over=True)
                                     + '\n.. toctree::\n   :maxdepth: 1\n\n'
                                     + ''.join(f'   {d}\n' for d in docs))
            chapters.append(f'ch{c}/index')
            corpus.chapters += 1

        faq_labels = []
        for i in range(shape.faq_pages):
            year = LAST_FAQ_YEAR - shape.faq_pages + 1 + i
            share = 1.0 if shape.faq_pages == 1 else 0.8 + 0.4 * i / (shape.faq_pages - 1)
            docname = f'faq/{year}'
            pages[docname], labels = self.faq_page(docname, year, round(shape.faq_rulings * share),
                                                   texts, intros)
            faq_labels += labels
            corpus.faq_pages.append(docname)
        if shape.faq_pages:
            pages['faq/index'] = (heading('FAQ', over=True)
                                  + '\n.. toctree::\n   :maxdepth: 1\n\n'
                                  + ''.join(f'   {d.split("/")[1]}\n' for d in corpus.faq_pages)
                                  + '\n' + ''.join(f'- :ref:`{label}`\n' for label in faq_labels))
            chapters.append('faq/index')

        # :ref: to a label no page defines and conf.py does not plan: 调整中
        defined = self.kept_labels | set(faq_labels)
        fallback = '调整中' if '调整中' in self.planned else None

        def ref(m: re.Match) -> str:
            if m[1] in defined or m[1] in self.planned:
                corpus.refs_to_labels += m[1] in defined
                return m[0]
            return f':ref:`{fallback}`' if fallback else m[1]
        for docname in pages:
            pages[docname] = _REF.sub(ref, pages[docname])
        corpus.labels = len(defined)

        pages['index'] = (heading('游戏王 OCG 裁定手册（基准测试语料）', over=True)
                          + '\n.. toctree::\n   :maxdepth: 2\n\n'
                          + ''.join(f'   {d}\n' for d in chapters)
                          + '\n.. toctree::\n   :maxdepth: 1\n   :caption: 索引\n\n'
                          + ''.join(f'   {d}\n' for d in GENERATED_PAGES))
        for docname, text in pages.items():
            path = corpus.source / f'{docname}.rst'
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding='utf-8')
            corpus.size += len(text.encode())
        for stub in GENERATED_PAGES:
            shutil.copy(ROOT / 'source' / f'{stub}.rst', corpus.source / f'{stub}.rst')
        corpus.docs = len(pages) + len(GENERATED_PAGES)
        corpus.dated = sum(len(re.findall(r':ruling:`|`\d+/\d+/\d+ <[^>]*>`__', t)) for t in pages.values())
        corpus.names_used = len(self.uses)

        # the name the registry measure changes: used by about 3 pages
        by_pages = sorted((abs(len(docs) - 3), name) for name in self.names
                          if (docs := self.uses.get(fold(name))))
        corpus.renamed = by_pages[0][1] if by_pages else self.names[-1]
        corpus.renamed_pages = len(self.uses.get(fold(corpus.renamed), ()))

        write_baseline_conf(corpus.baseline_conf, append_all=False)
        write_baseline_conf(corpus.old_baseline_conf, append_all=True)
        return corpus


BASELINE_CONF = '''\
"""The baseline of tools/bench.py: plain Sphinx, built the way an existing
handbook's conf.py builds it.  The link file is parsed once; each page gets
{what}."""

import re
from pathlib import Path

from docutils import nodes
from docutils.nodes import fully_normalize_name
from docutils.parsers.rst import Directive

project = '裁定手册（基准）'
language = 'zh_CN'
html_theme = 'furo'
html_search_language = 'zh'
html_copy_source = False
suppress_warnings = ['ref.ref']  # the planned sections: no page defines them

LINKS = Path(__file__).resolve().parent.parent / 'links.rst'
APPEND_ALL = {append_all}
FAQ = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={{}}&request_locale=ja'

ROWS = {{}}
for _line in LINKS.read_text(encoding='utf-8').splitlines():
    _m = re.match(r'^\\.\\. _`(.+)`:', _line)
    if _m:
        ROWS.setdefault(fully_normalize_name(_m[1]), _line)
_REFERENCE = re.compile(r'`([^`]+)`_(?!_)')
_EMBEDDED = re.compile(r'\\s<[^<>]*>$')  # `text <url>`_ is not a reference to a target


def append_link_targets(app, docname, source):
    if APPEND_ALL:
        rows = list(ROWS.values())
    else:
        names = {{fully_normalize_name(m[1]) for m in _REFERENCE.finditer(source[0])
                  if not _EMBEDDED.search(m[1])}}
        rows = [ROWS[n] for n in sorted(names) if n in ROWS]
    if rows:
        source[0] += '\\n\\n' + '\\n'.join(rows) + '\\n'


def ruling_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    m = re.match(r'^(.*?)\\s*(?:<([^>]*)>)?$', text, re.S)
    date, target = m[1], m[2]
    if target:
        url = FAQ.format(target[4:]) if target.startswith('faq:') else target
        return [nodes.reference(rawtext, date, refuri=url)], []
    return [nodes.inline(rawtext, date)], []


def strike_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.inline(rawtext, text, classes=['strike'])], []


class Nothing(Directive):
    def run(self):
        return []


def setup(app):
    app.connect('source-read', append_link_targets)
    app.add_role('ruling', ruling_role)
    app.add_role('strike', strike_role)
    app.add_directive('card-index', Nothing)
    app.add_directive('ruling-timeline', Nothing)
'''


def write_baseline_conf(folder: Path, append_all: bool) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    what = ('the whole link file appended (the old baseline of make bench)' if append_all else
            'exactly the link targets it uses, appended by a source-read handler')
    (folder / 'conf.py').write_text(BASELINE_CONF.format(what=what, append_all=append_all),
                                    encoding='utf-8')


# -- running -------------------------------------------------------------------------

@dataclass
class Run:
    seconds: float
    peak_mb: float
    status: int
    output: str
    written: list[str] | None = None  # files of the HTML folder written
    cpu: float = 0.0  # user + system seconds of the command and the processes it waited for


def environment(**extra: str) -> dict[str, str]:
    """Our environment without make's (a sub-make must not inherit make
    bench's command line), plus *extra*."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES')}
    return {**env, **extra}


def run(cmd: list[str], log: Path) -> Run:
    """Run *cmd*; its wall time and the peak RSS of its largest process
    (itself or a descendant), its output kept in *log*."""
    log.parent.mkdir(parents=True, exist_ok=True)
    # what the runs before wrote goes to disk first, untimed: a run does not
    # pay for the writing back of the one before (a clean build writes 150 MB)
    os.sync()
    with log.open('w', encoding='utf-8') as out:
        out.write('$ ' + ' '.join(cmd) + '\n')
        out.flush()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=environment())
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(seconds, usage.ru_maxrss / 1024, proc.returncode,
               log.read_text(encoding='utf-8', errors='replace'),
               cpu=usage.ru_utime + usage.ru_stime)


def make(target: str, corpus: Corpus, builddir: Path, *variables: str) -> list[str]:
    return ['make', '--no-print-directory', '-C', str(ROOT), target,
            f'SOURCEDIR={corpus.source}', f'CARDS={corpus.links}', f'BUILDDIR={builddir}',
            *variables]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(dirpath, name)
            st = os.stat(path)
            out[path] = (st.st_mtime_ns, st.st_size)
    return out


def written(before: dict, after: dict) -> list[str]:
    """The files of *after* that are new or changed since *before*."""
    return sorted(path for path, stamp in after.items() if before.get(path) != stamp)


def docs_in(output: str, stage: str) -> int:
    """How many documents a -j 1 build's output says it read or wrote."""
    return len(set(re.findall(rf'{stage}\.\.\. \[\s*\d+%\] (\S+)', output)))


def median_run(runs: list[Run]) -> Run:
    middle = sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_mb for r in runs),
               max(r.status for r in runs), middle.output, middle.written,
               statistics.median(r.cpu for r in runs))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode('utf-8', errors='replace')
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError,
            http.client.HTTPException):  # IncompleteRead: served while being replaced
        return None


def edit_faq_line(page: Path, marker: str) -> None:
    """Insert *marker* into a ruling line of the middle of a yearly FAQ page
    (one line changes: a line of a day, not a source header)."""
    lines = page.read_text(encoding='utf-8').split('\n')
    rulings = [i for i, line in enumerate(lines)  # not a header, nor a struck line
               if line.startswith('| ') and not line.startswith('| :')
               and not line.rstrip().endswith(('：', ':'))]
    if not rulings:
        raise SystemExit(f'{page}: no ruling line to edit')
    i = rulings[len(rulings) // 2]
    lines[i] = lines[i][:2] + marker + lines[i][2:]
    page.write_text('\n'.join(lines), encoding='utf-8')


def add_faq_line(page: Path, text: str) -> None:
    """Add a ruling line at the end of a yearly FAQ page: to its newest day,
    where an editor adds the day's rulings (a line of the day's last line block)."""
    lines = page.read_text(encoding='utf-8').rstrip('\n').split('\n')
    if not lines[-1].startswith('| '):
        raise SystemExit(f'{page}: does not end with a line block')
    page.write_text('\n'.join([*lines, f'| {text}']) + '\n', encoding='utf-8')


def edit_ruling(page: Path, marker: str) -> None:
    """Insert *marker* into the first dated ruling of *page* (one line changes)."""
    text = page.read_text(encoding='utf-8')
    if '\\ :ruling:`' not in text:
        raise SystemExit(f'{page}: no ruling to edit')
    page.write_text(text.replace('\\ :ruling:`', f'{marker}\\ :ruling:`', 1), encoding='utf-8')


# -- the measures --------------------------------------------------------------------

BASELINE_NAME = 'plain Sphinx + each page\'s own link targets, `-j 1` (baseline)'


@dataclass
class Result:
    key: str
    name: str
    run: Run | None = None
    seconds: float | None = None
    note: str = ''
    extra: dict = field(default_factory=dict)


TARGETS = {  # key: (target as the issue writes it, relative to, limit)
    'clean-1': ('≤ 0.8 ×', 'baseline', 0.8),
    'clean-auto': ('≤ 0.6 ×', 'baseline', 0.6),
    'memory': ('≤ 1.2 ×', 'memory', 1.2),
    'no-change': ('writes no file, ≤ 0.1 ×', 'baseline', 0.1),
    'ruling': ('≤ 0.1 × of our clean build', 'ours', 0.1),
    'registry': ('≤ 0.15 ×', 'baseline', 0.15),
    'check': ('≤ 0.5 ×', 'baseline', 0.5),
    'preview': ('≤ 2 s on the benchmark corpus', 'seconds', 2.0),
    'faq-edit': ('≤ 2.5 s', 'seconds', 2.5),
    'faq-add': ('≤ 2.5 s', 'seconds', 2.5),
    'faq-preview': ('≤ 2.5 s', 'seconds', 2.5),
    'suggest': ('≤ 5 ms (rapidfuzz, or an index)', 'ms', 5.0),
    'card-pages': ('add ≤ 15 % to our clean build', 'share', 0.15),
    'search': ('first ruling ≤ 300 ms median, ≤ 600 ms worst; ≤ 150 KiB per cold query; '
               'blocking ≤ 200 ms; warm keystroke ≤ 50 ms', 'search', None),
    'search-index': ('≤ 1.5 MB gzipped per 10,000 rulings', 'search', None),
    'weight-gzip': ('≤ 1.3 × the baseline, every content page', 'weight', 1.3),
    'weight-dom': ('≤ 1.3 × the baseline, every content page', 'weight', 1.3),
    'weight-generated': ('≤ 1 MB of HTML', 'weight', 1_000_000),
}
MEASURES = ['clean', 'no-change', 'ruling', 'faq-edit', 'faq-add', 'registry', 'check',
            'preview', 'faq-preview', 'suggest', 'card-pages', 'search', 'weight', 'parts']
#: the speed package's parts (_ext/handbook/speed/__init__.py), measured by --only parts
SPEED_PARTS = ['gc', 'write', 'toctrees', 'parser', 'pinyin-ahead', 'card-pages-aside',
               'index-aside', 'read-order']


class Bench:
    def __init__(self, corpus: Corpus, runs: int, work: Path, only: list[str]) -> None:
        self.corpus = corpus
        self.runs = runs
        self.work = work
        self.logs = work.parent / 'logs'
        self.only = only
        self.python = str(ROOT / '.venv' / 'bin' / 'python')
        self.results: dict[str, Result] = {}
        self.reports: dict[str, str] = {}  # what our toolchain said: measure -> output
        self.incremental_ready = False
        self.site_built = False  # our_site()'s, when no clean `-j 1` build is measured
        self.part_names = list(SPEED_PARTS)
        self.part_measures = ['clean-1', 'clean-auto', 'ruling']
        self.part_rows: list[dict] = []
        shutil.rmtree(self.logs, ignore_errors=True)

    def say(self, text: str) -> None:
        print(text, flush=True)

    def log(self, name: str) -> Path:
        return self.logs / f'{name}.log'

    def baseline(self, conf: Path, key: str, name: str) -> Result:
        samples = [self.baseline_run(conf, key, name, i) for i in range(self.runs)]
        result = Result(key, name, median_run(samples))
        self.results[key] = result
        return result

    def baseline_run(self, conf: Path, key: str, name: str, i: int) -> Run:
        out = self.work / key
        shutil.rmtree(out, ignore_errors=True)
        r = run([self.python, '-m', 'sphinx', '-q', '-b', 'html', '-j', '1', '-c', str(conf),
                 '-d', str(out / 'doctrees'), str(self.corpus.source), str(out / 'html')],
                self.log(f'{key}-{i}'))
        if r.status:
            raise SystemExit(f'the baseline failed ({r.status}): see {self.log(f"{key}-{i}")}\n'
                             + r.output[-3000:])
        self.reports.setdefault(f'plain Sphinx ({key})', r.output)
        self.say(f'  {name}: {r.seconds:.1f} s, {r.peak_mb:.0f} MB')
        return r

    def clean_run(self, jobs: str, i: int) -> Run:
        key = f'clean-{jobs}'
        out = self.work / key
        shutil.rmtree(out, ignore_errors=True)
        r = run(make('html', self.corpus, out, f'JOBS={jobs}'), self.log(f'{key}-{i}'))
        self.say(f'  make html JOBS={jobs}: {r.seconds:.1f} s, {r.peak_mb:.0f} MB, exit {r.status}')
        self.reports.setdefault(f'make html JOBS={jobs}', r.output)
        return r

    def clean_rounds(self, baseline: bool, clean: bool) -> None:
        """The baseline and our clean builds, one of each per round, so that
        the machine's drift during the bench weighs on them alike; the notes
        give each round's ratios."""
        name = BASELINE_NAME
        samples: dict[str, list[Run]] = {}
        for i in range(self.runs):
            if baseline:
                samples.setdefault('baseline', []).append(
                    self.baseline_run(self.corpus.baseline_conf, 'baseline', name, i))
            if clean:
                for jobs in ('1', 'auto'):
                    samples.setdefault(f'clean-{jobs}', []).append(self.clean_run(jobs, i))
        if baseline:
            self.results['baseline'] = Result('baseline', name, median_run(samples['baseline']))
        for jobs in ('1', 'auto') if clean else ():
            key = f'clean-{jobs}'
            r = median_run(samples[key])
            rounds = ''
            if baseline:
                ratios = [ours.seconds / base.seconds
                          for ours, base in zip(samples[key], samples['baseline'])]
                rounds = 'each round: ' + ', '.join(f'{x:.2f} ×' for x in ratios)
            self.results[key] = Result(key, f'clean `make html`, `-j {jobs}`', r,
                                       note='; '.join(filter(None, [rounds, self.exit_note(r)])))

    @staticmethod
    def exit_note(r: Run) -> str:
        if not r.status:
            return ''
        problems = len(re.findall(r'\b(?:WARNING|ERROR|CRITICAL|SEVERE):', r.output))
        return f'exit {r.status} ({problems} warnings/errors)'

    def incremental(self, key: str, name: str, change, describe, jobs: str = '1') -> None:
        """One build folder: a clean build, then per run *change*(i) and a build
        (``JOBS=`` *jobs*; the folder's clean build is ``JOBS=1``)."""
        out = self.work / 'incremental'
        html = out / 'html'
        if not self.incremental_ready:  # a clean build of this run's corpus, untimed
            shutil.rmtree(out, ignore_errors=True)
            run(make('html', self.corpus, out, 'JOBS=1'), self.log('incremental-setup'))
            self.incremental_ready = True
        samples = []
        for i in range(self.runs):
            change(i)
            before = snapshot(html)
            r = run(make('html', self.corpus, out, f'JOBS={jobs}'), self.log(f'{key}-{i}'))
            r.written = [os.path.relpath(p, html) for p in written(before, snapshot(html))]
            samples.append(r)
            self.say(f'  {name}: {r.seconds:.1f} s, wrote {len(r.written)} files, exit {r.status}')
        r = median_run(samples)
        files = ', '.join(r.written[:12]) + (', …' if len(r.written) > 12 else '')
        note = (f'read {docs_in(r.output, "reading sources")} docs, wrote '
                f'{docs_in(r.output, "writing output")} docs, {len(r.written)} files changed'
                + (f' ({files})' if r.written else ''))
        note = '; '.join(filter(None, [describe(), note, self.exit_note(r)]))
        self.results[key] = Result(key, name, r, note=note)

    def check(self) -> None:
        samples = []
        for i in range(self.runs):
            r = run(make('check', self.corpus, self.work / 'check'), self.log(f'check-{i}'))
            samples.append(r)
            self.say(f'  make check: {r.seconds:.1f} s, exit {r.status}')
            self.reports.setdefault('make check', r.output)
        r = median_run(samples)
        summary = re.findall(r'^make check: .*$', r.output, re.M)
        note = '; '.join(filter(None, [summary[-1] if summary else '', f'exit {r.status}' if r.status else '']))
        self.results['check'] = Result('check', '`make check`', r, note=note)

    def preview(self, key: str = 'preview', page: str | None = None, edit=None) -> None:
        """Edit to preview: *page* (a chapter page) edited by *edit* (a ruling's line)."""
        corpus = self.corpus
        page = page or corpus.chapter_pages[len(corpus.chapter_pages) // 3]
        edit = edit or edit_ruling
        path = corpus.source / f'{page}.rst'
        original = path.read_text(encoding='utf-8')
        port = free_port()
        out = self.work / 'preview'
        shutil.rmtree(out, ignore_errors=True)
        log = self.log(key)
        log.parent.mkdir(parents=True, exist_ok=True)
        url = f'http://127.0.0.1:{port}/{page}.html'
        served = lambda: log.read_text(encoding='utf-8', errors='replace').count('Serving on')  # noqa: E731
        samples = []
        with log.open('w', encoding='utf-8') as stream:
            server = subprocess.Popen(make('preview', corpus, out, f'PORT={port}'), stdout=stream,
                                      stderr=subprocess.STDOUT, start_new_session=True,
                                      env=environment(PYTHONUNBUFFERED='1'))
            try:
                start = time.perf_counter()
                self.wait(lambda: served() >= 1, 3600, server, 'the first build of make preview')
                self.wait(lambda: fetch(url) is not None, 60, server, f'{url} to be served')
                self.say(f'  make preview: first build served after {time.perf_counter() - start:.1f} s')
                for i in range(self.runs):
                    builds = served()
                    marker = f'（预览编辑{i}）'
                    edit(path, marker)
                    saved = time.perf_counter()
                    shown = lambda: marker in (fetch(url) or '')  # noqa: E731
                    self.wait(lambda: shown() or (served() > builds and not shown()), 900, server,
                              'the edit to show in the served page', step=0.05)
                    seconds = time.perf_counter() - saved
                    if not shown():
                        raise SystemExit(f'make preview rebuilt without showing the edit: see {log}')
                    samples.append(seconds)
                    self.say(f'  edit to preview: {seconds:.2f} s')
                    # let that rebuild finish before the next edit
                    self.wait(lambda: served() > builds, 900, server, 'the rebuild to finish')
                    time.sleep(1)
            finally:
                stop(server)
                path.write_text(original, encoding='utf-8')
        name = 'edit to preview (`make preview`)' if key == 'preview' else \
            'edit to preview, the largest yearly FAQ page (`make preview`)'
        self.results[key] = Result(key, name, seconds=statistics.median(samples),
                                   note=f'{page}.rst ({path.stat().st_size / 1e3:.0f} KB), one '
                                        f'line; {out.name} served on a free port')

    @staticmethod
    def wait(condition, timeout: float, server: subprocess.Popen, what: str, step: float = 0.2) -> None:
        end = time.perf_counter() + timeout
        while not condition():
            if server.poll() is not None:
                raise SystemExit(f'make preview stopped (exit {server.returncode}) waiting for {what}')
            if time.perf_counter() > end:
                raise SystemExit(f'timed out waiting for {what}')
            time.sleep(step)

    def suggest(self) -> None:
        registry = load(self.corpus.links)
        rng = random.Random(self.corpus.rows)
        names = [c.name for c in registry.cards()]
        unknown: list[str] = []
        while len(unknown) < 25:  # one-character typos of registry names
            name = list(rng.choice(names))
            i = rng.randrange(len(name))
            how = rng.randrange(3)
            if how == 0:
                name[i] = rng.choice(rng.choice(names))
            elif how == 1 and len(name) > 2:
                del name[i]
            elif i + 1 < len(name):
                name[i], name[i + 1] = name[i + 1], name[i]
            typo = ''.join(name)
            if registry.lookup(typo) is None and typo not in unknown:
                unknown.append(typo)
        prose = ''.join(re.findall(r'[\u4e00-\u9fff]+', ''.join(
            _CARD.sub('', (ROOT / 'source' / f'{p}.rst').read_text(encoding='utf-8'))
            for p in CONTENT_PAGES)))
        while len(unknown) < 50:  # unrelated names: pieces of the pages' text
            n = rng.randint(3, 9)
            i = rng.randrange(len(prose) - n)
            piece = prose[i:i + n]
            if registry.lookup(piece) is None and piece not in unknown:
                unknown.append(piece)
        # the issue names Registry.suggest; the registry may call it did_you_mean
        method = next((m for m in ('suggest', 'did_you_mean') if hasattr(registry, m)), None)
        if method is None:
            self.say('  did-you-mean: the registry has neither suggest nor did_you_mean')
            return
        ask = getattr(registry, method)
        times = []
        for name in unknown:
            start = time.perf_counter()
            ask(name)
            times.append((time.perf_counter() - start) * 1000)
        ms = statistics.median(times)
        self.say(f'  did-you-mean: {ms:.2f} ms median, first call {times[0]:.1f} ms')
        self.results['suggest'] = Result(
            'suggest', f'one did-you-mean over a {self.corpus.rows:,}-row registry', seconds=ms / 1000,
            note=f'`Registry.{method}`, median of {len(times)} unknown names (25 typos, 25 unrelated); '
                 f'first call {times[0]:.1f} ms, slowest {max(times):.1f} ms',
            extra={'ms': ms})

    def all(self, old_baseline: bool) -> None:
        wanted = lambda m: not self.only or m in self.only  # noqa: E731
        # the venv up to date now, so that no timed make installs anything
        run(['make', '--no-print-directory', '-C', str(ROOT), 'venv'], self.log('venv'))
        with_baseline = any(wanted(m) for m in ('clean', 'no-change', 'registry', 'check'))
        if with_baseline or wanted('clean'):
            self.say('the baseline (plain Sphinx, each page its own link targets)'
                     + (' and our clean builds, in rounds' if wanted('clean') else ''))
            self.clean_rounds(with_baseline, wanted('clean'))
        if old_baseline:
            self.say('old baseline: the whole registry appended to every page')
            self.baseline(self.corpus.old_baseline_conf, 'old-baseline', 'old baseline')
        corpus = self.corpus
        pages = corpus.chapter_pages
        edited = corpus.source / f'{pages[len(pages) // 2]}.rst'
        if wanted('no-change'):
            self.incremental('no-change', 'no-change rebuild', lambda i: None, lambda: '')
        if wanted('ruling'):
            self.incremental('ruling', 'one ruling edited', lambda i: edit_ruling(edited, f'（编辑{i}）'),
                             lambda: f'{edited.relative_to(corpus.source)}')
        largest = max(corpus.faq_pages, key=lambda d: (corpus.source / f'{d}.rst').stat().st_size,
                      default=None)
        if wanted('faq-edit') and largest:
            faq = corpus.source / f'{largest}.rst'
            self.incremental('faq-edit', 'one ruling edited on the largest yearly FAQ page (`make html`)',
                             lambda i: edit_faq_line(faq, f'（编辑{i}）'),
                             lambda: f'{largest}.rst, {faq.stat().st_size / 1e3:.0f} KB, '
                                     'make html as users run it (JOBS=auto)', jobs='auto')
        if wanted('faq-add') and largest:
            faq = corpus.source / f'{largest}.rst'
            names = sorted(corpus.link_rows)  # each added ruling links a card, as rulings do
            self.incremental('faq-add', 'one ruling added to the newest day of the largest '
                             'yearly FAQ page (`make html`)',
                             lambda i: add_faq_line(
                                 faq, f'「`{names[i * 997 % len(names)]}`_」的效果新增的裁定（{i}）。'),
                             lambda: f'{largest}.rst, a line linking a card at its end, make html '
                                     'as users run it (JOBS=auto)', jobs='auto')
        if wanted('registry'):
            original = corpus.links.read_text(encoding='utf-8')
            row = corpus.link_rows[corpus.renamed]

            def change(i: int) -> None:
                corpus.links.write_text(original.replace(f'{row}\n', f'{row}?v={i}\n', 1), encoding='utf-8')
            try:
                self.incremental('registry', 'one registry name changed', change,
                                 lambda: f'「{corpus.renamed}」 (its URL), used on {corpus.renamed_pages} pages')
            finally:
                corpus.links.write_text(original, encoding='utf-8')
        if wanted('check'):
            self.say('make check')
            self.check()
        if wanted('preview'):
            self.say('make preview')
            self.preview()
        if wanted('faq-preview') and largest:
            self.say('make preview, the largest yearly FAQ page')
            self.preview('faq-preview', largest, edit_faq_line)
        if wanted('suggest'):
            self.say('did-you-mean')
            self.suggest()
        if wanted('card-pages'):
            self.say('card pages (issue 13): our clean build with them, then without')
            self.card_pages()
        if wanted('search'):
            self.say('search (issue 33): cold queries and keystrokes, CPU 4× slower')
            self.search()
        if wanted('weight'):
            self.say('page weight (issue 33): our pages against the baseline\'s')
            self.weight()
        if 'parts' in self.only:  # only when asked: about an hour on 2 cores
            self.say('the speed package, part by part: with every part, then without one')
            self.parts()

    def parts(self) -> None:
        """What each part of the speed package earns: our clean ``-j 1`` and
        ``-j auto`` builds and the one-ruling edit, with every part (A) and
        without the part (B), in interleaved pairs (A/B, then B/A); the
        medians of wall and CPU seconds (user + system of the build and the
        processes it waited for).  ``none`` is the package with no part on."""
        corpus = self.corpus
        pages = corpus.chapter_pages
        edited = corpus.source / f'{pages[len(pages) // 2]}.rst'
        original = edited.read_text(encoding='utf-8')
        base = self.work / 'parts'
        shutil.rmtree(base, ignore_errors=True)
        if 'ruling' in self.part_measures:  # the edits' build folders, clean-built once
            for label in ('A', 'B'):
                run(make('html', corpus, base / label, 'JOBS=1'), self.log(f'parts-{label}'))
        rows = []
        for part in [*self.part_names, 'none']:
            kept = [p for p in SPEED_PARTS if p != part] if part != 'none' else []
            without = [f'SPHINXOPTS=-D handbook_speed_parts={",".join(kept) or ","}']
            row = {'part': part}
            for measure in self.part_measures:
                samples: dict[str, list[Run]] = {'A': [], 'B': []}
                for i in range(self.runs):
                    order = ('A', 'B') if i % 2 == 0 else ('B', 'A')
                    if measure == 'ruling':
                        edit_ruling(edited, f'（{part}{i}）')
                    for label in order:
                        options = [] if label == 'A' else without
                        if measure == 'ruling':
                            out, jobs = base / label, '1'
                        else:
                            out, jobs = base / f'{label}-{measure}', measure.split('-')[1]
                            shutil.rmtree(out, ignore_errors=True)
                        r = run(make('html', corpus, out, f'JOBS={jobs}', *options),
                                self.log(f'parts-{part}-{measure}-{label}-{i}'))
                        if r.status:
                            raise SystemExit(f'a build failed: see logs/parts-{part}-{measure}-'
                                             f'{label}-{i}.log')
                        samples[label].append(r)
                a, b = (median_run(samples[label]) for label in ('A', 'B'))
                row[measure] = (a, b)
                self.say(f'  {part}, {measure}: with {a.seconds:.2f} s ({a.cpu:.2f} s CPU), '
                         f'without {b.seconds:.2f} s ({b.cpu:.2f} s CPU): '
                         f'{b.seconds / a.seconds - 1:+.1%} wall, {b.cpu / a.cpu - 1:+.1%} CPU')
            rows.append(row)
        edited.write_text(original, encoding='utf-8')
        self.part_rows = rows

    def card_pages(self) -> None:
        """What the card pages add: in each run, our clean ``-j 1`` build with
        them and, right after, without them (``handbook_card_pages = False``);
        the median of the runs' shares.  Each pair is timed together: builds
        timed minutes apart compare the machine's drift as much as the pages."""
        samples, shares = [], []
        for i in range(self.runs):
            pair = {}
            for label, options in (('with', []), ('without', ['SPHINXOPTS=-D handbook_card_pages=0'])):
                out = self.work / f'card-pages-{label}'
                shutil.rmtree(out, ignore_errors=True)
                pair[label] = run(make('html', self.corpus, out, 'JOBS=1', *options),
                                  self.log(f'card-pages-{label}-{i}'))
            shares.append(1 - pair['without'].seconds / pair['with'].seconds)
            samples.append(pair['without'])
            self.say(f'  with card pages: {pair["with"].seconds:.1f} s, without: '
                     f'{pair["without"].seconds:.1f} s, {pair["without"].peak_mb:.0f} MB '
                     f'(+{shares[-1]:.0%})')
        self.results['card-pages'] = Result(
            'card-pages', 'card pages (`cards/*.html`), added to a clean `-j 1` build',
            median_run(samples), note='each pair: '
            + ', '.join(f'+{x:.0%}' for x in shares), extra={'share': statistics.median(shares)})

    def our_site(self) -> Path:
        """Our site of the corpus, built by this run: the clean `-j 1` build's,
        else one built now, once for the measures that read it (a site kept
        from an earlier run may be an older toolchain's)."""
        if 'clean-1' in self.results:
            return self.work / 'clean-1' / 'html'
        site = self.work / 'site' / 'html'
        if not self.site_built:
            shutil.rmtree(site.parent, ignore_errors=True)
            run(make('html', self.corpus, site.parent, 'JOBS=auto'), self.log('site-build'))
            self.site_built = True
        return site

    def search(self) -> None:
        """The search's budgets (issue 33) on the corpus's site (tools/search_budget.py)."""
        site = self.our_site()
        figures = self.work / 'search-budget.json'
        r = run([self.python, str(ROOT / 'tools' / 'search_budget.py'), str(site),
                 '--json', str(figures)], self.log('search'))
        self.say('  ' + r.output.strip().replace('\n', '\n  '))
        if r.status or not figures.is_file():
            self.results['search'] = Result('search', 'search (CPU 4× slower)',
                                            note='not measured: see logs/search.log', extra={'met': None})
            return
        found = json.loads(figures.read_text(encoding='utf-8'))
        f = found['summary']
        self.results['search'] = Result(
            'search', f'search, {f["queries"]} cold queries and their keystrokes (CPU 4× slower)',
            note=(f'first ruling median {f["first_median"]:.0f} ms, worst {f["first_worst"]:.0f} ms '
                  f'(the page alone {f["page_alone"]:.0f} ms); '
                  f'downloaded worst {f["kib_worst"]:.0f} KiB (median {f["kib_median"]:.0f}); '
                  f'blocking worst {f["blocking_worst"]:.0f} ms (median {f["blocking_median"]:.0f}); '
                  f'warm keystroke median {f["keystroke_median"]:.0f} ms (worst {f["keystroke_worst"]:.0f}); '
                  f'content pages fetched {f["content_pages"]}; '
                  f'{f.get("index_rulings", self.corpus.dated):,} rulings searched'),
            extra={'met': found['met']})
        self.results['search-index'] = Result(
            'search-index', 'the search index, gzipped per 10,000 rulings (all its files)',
            note=(f'{f["index_mb"]:.2f} MB in {f["index_files"]:,} files for {f["index_rulings"]:,} '
                  f'rulings: {f["index_mb_per_10000"]:.2f} MB per 10,000'),
            extra={'met': found.get('index_met')})


    def weight(self) -> None:
        """Page weight: every content page gzipped and in DOM nodes, ours over
        the baseline's; the largest page our build generates."""
        base = self.work / 'baseline' / 'html'
        if 'baseline' not in self.results:  # not built by this run: built now
            self.baseline_run(self.corpus.baseline_conf, 'baseline', BASELINE_NAME, 0)
        ours = self.our_site()
        source = {p.relative_to(self.corpus.source).with_suffix('').as_posix()
                  for p in self.corpus.source.rglob('*.rst')}
        content = sorted(source - set(GENERATED_PAGES))
        rows = []
        for doc in content:
            mine, theirs = ours / f'{doc}.html', base / f'{doc}.html'
            if mine.is_file() and theirs.is_file():
                rows.append((doc, page_weight(mine), page_weight(theirs)))
        if not rows:
            self.say('  page weight: no page to compare (see logs/site-build.log or clean-1-0.log)')
            return
        gz = [(o[0] / b[0], doc) for doc, o, b in rows]
        dom = [(o[1] / b[1], doc) for doc, o, b in rows]
        generated = [(path.stat().st_size, path.relative_to(ours).as_posix())
                     for path in ours.rglob('*.html')
                     if path.relative_to(ours).with_suffix('').as_posix() not in content]
        largest = max(generated, default=(0, ''))
        heaviest = max(rows, key=lambda r: r[1][0])
        for (ratio, doc), what in ((max(gz), 'gzipped'), (max(dom), 'DOM nodes')):
            self.say(f'  {what}: at most {ratio:.2f} × ({doc}), median '
                     f'{statistics.median(r for r, _ in (gz if what == "gzipped" else dom)):.2f} ×')
        self.say(f'  largest generated page: {largest[1]}, {largest[0]:,} bytes')
        self.results['weight-gzip'] = Result(
            'weight-gzip', 'content pages, gzipped, × the baseline\'s (largest ratio)',
            note=(f'{max(gz)[1]}; median {statistics.median(r for r, _ in gz):.2f} ×, '
                  f'{len(rows)} pages; the heaviest, {heaviest[0]}: '
                  f'{heaviest[1][0]:,} against {heaviest[2][0]:,} bytes'),
            extra={'x': max(gz)[0]})
        self.results['weight-dom'] = Result(
            'weight-dom', 'content pages, DOM nodes, × the baseline\'s (largest ratio)',
            note=(f'{max(dom)[1]}; median {statistics.median(r for r, _ in dom):.2f} ×; the '
                  f'heaviest: {heaviest[1][1]:,} against {heaviest[2][1]:,} nodes'),
            extra={'x': max(dom)[0]})
        self.results['weight-generated'] = Result(
            'weight-generated', 'largest generated page, bytes of HTML',
            note=f'{largest[1]}, {largest[0]:,} bytes, {self.corpus.dated:,} rulings; '
                 f'{len(generated)} generated pages',
            extra={'x': largest[0]})


class DomCount(HTMLParser):
    """The nodes of the DOM an HTML page makes: its elements, and its text
    nodes (a run of text between two tags, whitespace included, as the
    browser keeps it in the body)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes = 0
        self.text = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.nodes += 1 + self.text
        self.text = False

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.nodes += self.text
        self.text = False

    def handle_data(self, data: str) -> None:
        self.text = True


def page_weight(path: Path) -> tuple[int, int]:
    """A page's bytes gzipped (level 6, as web servers send them) and its DOM nodes."""
    data = path.read_bytes()
    count = DomCount()
    count.feed(data.decode('utf-8', 'replace'))
    count.close()
    return len(gzip.compress(data, 6)), count.nodes + count.text


def stop(server: subprocess.Popen) -> None:
    """Stop the server we started: its process group, Ctrl+C first."""
    for sig, wait in ((signal.SIGINT, 10), (signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, sig)
        try:
            server.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


# -- the report ----------------------------------------------------------------------

def table(bench: Bench) -> str:
    res = bench.results
    base = res.get('baseline')
    ours = res.get('clean-1')
    rows = [['measure', 'seconds', '×', 'peak MB', '× baseline', 'target', 'met?', 'notes'],
            ['---'] * 8]

    def ratio(a: float | None, b: float | None) -> float | None:
        return a / b if a is not None and b else None

    def fmt(x: float | None, digits: int = 2) -> str:
        return '' if x is None else f'{x:.{digits}f}'

    if base:
        rows.append([base.name, fmt(base.run.seconds, 1), '1.00', fmt(base.run.peak_mb, 0), '1.00',
                     '', '', f'{bench.runs} run(s)'])
    order = ['clean-1', 'clean-auto', 'memory', 'no-change', 'ruling', 'faq-edit', 'faq-add',
             'registry', 'check', 'preview', 'faq-preview', 'suggest', 'card-pages', 'search',
             'search-index', 'weight-gzip', 'weight-dom', 'weight-generated']
    if 'clean-1' in res and base:
        peak = max(res[k].run.peak_mb for k in ('clean-1', 'clean-auto') if k in res)
        res['memory'] = Result('memory', 'peak memory (largest process, our clean builds)',
                               note=f'{peak:.0f} MB / {base.run.peak_mb:.0f} MB', extra={'peak': peak})
    for key in order:
        if key not in res:
            continue
        r = res[key]
        target, relative, limit = TARGETS[key]
        seconds = r.run.seconds if r.run else r.seconds
        peak = r.run.peak_mb if r.run else r.extra.get('peak')
        peak_ratio = ratio(peak, base.run.peak_mb if base else None)
        if relative == 'baseline':
            x = ratio(seconds, base.run.seconds if base else None)
            shown = fmt(x)
        elif relative == 'ours':
            x = ratio(seconds, ours.run.seconds if ours else None)
            shown = f'{fmt(x)} × ours' if x is not None else ''
        elif relative == 'memory':
            x = peak_ratio
            shown = ''
        elif relative == 'ms':
            x = r.extra['ms']
            shown = ''
        elif relative == 'share':  # the share of our clean build the card pages take
            x = r.extra.get('share')
            shown = f'+{x:.0%} of ours' if x is not None else ''
        elif relative == 'weight':
            x = r.extra['x']
            met = x <= limit
            shown = f'{x:,} bytes' if key == 'weight-generated' else f'{x:.2f} ×'
            rows.append([r.name, '', shown, '', '', target, 'met' if met else '**missed**', r.note])
            continue
        elif relative == 'search':
            met = r.extra.get('met')
            rows.append([r.name, '', '', '', '', target,
                         '' if met is None else ('met' if met else '**missed**'), r.note])
            continue
        else:
            x = seconds
            shown = ''
        met = x is not None and x <= limit
        if key == 'no-change':
            met = met and not r.run.written
        if key == 'suggest':
            secs = f'{r.extra["ms"]:.2f} ms'
        else:
            secs = fmt(seconds, 2 if (seconds or 0) < 10 else 1) if seconds is not None else ''
        rows.append([r.name, secs, shown, fmt(peak, 0), fmt(peak_ratio), target,
                     '' if x is None else ('met' if met else '**missed**'), r.note])
    return '\n'.join('| ' + ' | '.join(str(c) for c in row) + ' |' for row in rows)


def parts_table(bench: Bench) -> str:
    measures = bench.part_measures
    head = ['part'] + [f'{m}: wall A → B, CPU A → B' for m in measures]
    rows = [head, ['---'] * len(head)]
    for row in bench.part_rows:
        cells = [row['part']]
        for measure in measures:
            a, b = row[measure]
            cells.append(f'{a.seconds:.2f} → {b.seconds:.2f} s ({b.seconds / a.seconds - 1:+.0%}), '
                         f'{a.cpu:.2f} → {b.cpu:.2f} s ({b.cpu / a.cpu - 1:+.0%})')
        rows.append(cells)
    return '\n'.join('| ' + ' | '.join(row) + ' |' for row in rows)


def reports(bench: Bench) -> str:
    """What our toolchain said about the corpus: by kind and severity, with examples."""
    out = []
    for what, output in bench.reports.items():
        kinds: dict[tuple[str, str], list[str]] = {}
        for ln in output.splitlines():
            # make check's summary of notes: "note: handbook.unused-card ×984 (…): …"
            summary = re.match(r'^(note|info): ([\w.-]+) ×(\d+)', ln)
            if summary:
                kinds.setdefault((summary[2], summary[1]), []).extend([ln] * int(summary[3]))
                continue
            m = re.search(r': (WARNING|ERROR|CRITICAL|SEVERE|error|warning|note|info): ', ln)
            if not m or 'make check:' in ln[:12]:
                continue
            kind = re.search(r'\[([\w.-]+)\]\s*$', ln)
            kinds.setdefault((kind[1] if kind else 'other', m[1].lower()), []).append(ln)
        crashed = 'Exception occurred' in output or 'Traceback (most recent call last)' in output
        if not kinds:
            out.append(f'- `{what}`: nothing reported' + ('; it CRASHED (see logs/)' if crashed else '') + '.')
            continue
        ordered = sorted(kinds.items(), key=lambda kv: (kv[0][1] in ('note', 'info'), -len(kv[1])))
        out.append(f'- `{what}`: ' + ', '.join(f'{k} ({sev}) {len(v)}' for (k, sev), v in ordered)
                   + ('; it CRASHED (see logs/)' if crashed else ''))
        for _, examples in ordered:
            for ln in dict.fromkeys(examples[:3]):
                out.append(f'  - `{shorten(ln)}`')
    return '\n'.join(out)


def shorten(line: str) -> str:
    line = line.replace(str(ROOT) + '/', '').replace('`', "'")
    return line if len(line) <= 220 else line[:217] + '…'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description='Benchmark the toolchain against plain Sphinx (see the module docstring).')
    parser.add_argument('--quick', action='store_true',
                        help='a smoke run: 9 chapter pages, 1 FAQ page of 500 rulings, 2,000 names, 1 run')
    parser.add_argument('--chapters', type=int, help='chapters (default 6; quick 3)')
    parser.add_argument('--pages', type=int, help='chapter pages (default 48; quick 9)')
    parser.add_argument('--size-mb', type=float, help='MB of chapter pages (default 2.0; quick 0.3)')
    parser.add_argument('--faq-pages', type=int, help='yearly FAQ pages (default 5; quick 1)')
    parser.add_argument('--faq-rulings', type=int,
                        help='rulings per FAQ page, on average (default 2300; quick 500)')
    parser.add_argument('--names', type=int, help='rows of the link file (default 7000; quick 2000)')
    parser.add_argument('--runs', type=int, help='runs of each measure (default 3; quick 1)')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--only', default='',
                        help=f'comma-separated measures to run, of: {", ".join(MEASURES)}')
    parser.add_argument('--old-baseline', action='store_true',
                        help='also build with the whole registry appended to every page (a footnote)')
    parser.add_argument('--corpus-only', action='store_true', help='write the corpus and stop')
    parser.add_argument('--parts', default='',
                        help='--only parts: the speed parts measured (default: all), comma-separated')
    parser.add_argument('--part-measures', default='clean-1,clean-auto,ruling',
                        help='--only parts: the builds each part is measured on')
    parser.add_argument('--workdir', type=Path, default=ROOT / '_build' / 'bench')
    args = parser.parse_args(argv)

    defaults = (dict(chapters=3, pages=9, size_mb=0.3, faq_pages=1, faq_rulings=500, names=2000, runs=1)
                if args.quick else
                dict(chapters=6, pages=48, size_mb=2.0, faq_pages=5, faq_rulings=2300, names=7000, runs=3))
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    only = [m for m in args.only.split(',') if m]
    if unknown := set(only) - set(MEASURES):
        parser.error(f'unknown measures: {", ".join(sorted(unknown))}')

    work = args.workdir.resolve()
    shape = Shape(args.chapters, args.pages, args.size_mb, args.faq_pages, args.faq_rulings,
                  args.names, args.seed)
    corpus = Generator(shape, work / 'corpus').generate()
    summary = f'corpus: {corpus.describe()}.'
    print(summary, flush=True)
    if args.corpus_only:
        print(f'written to {corpus.root}: make html SOURCEDIR={corpus.source} CARDS={corpus.links}')
        return 0

    started = time.perf_counter()
    bench = Bench(corpus, args.runs, work / 'builds', only)
    if args.parts:
        bench.part_names = [p for p in args.parts.split(',') if p]
    bench.part_measures = [m for m in args.part_measures.split(',') if m]
    bench.all(args.old_baseline)
    lines = [f'# make bench, {time.strftime("%Y-%m-%d %H:%M")}', '', summary, '',
             f'Median of {args.runs} run(s) on {os.cpu_count()} cores; × is the ratio to the baseline '
             '(plain Sphinx, clean `-j 1`) unless it says "× ours" (our clean `-j 1` build).', '',
             table(bench)]
    if 'old-baseline' in bench.results and 'clean-1' in bench.results:
        old, ours = bench.results['old-baseline'].run, bench.results['clean-1'].run
        lines += ['', f'Footnote: the old baseline (the whole registry appended to every page) takes '
                      f'{old.seconds:.1f} s and {old.peak_mb:.0f} MB; our clean `-j 1` build is '
                      f'{ours.seconds / old.seconds:.2f} × of it.']
    if bench.part_rows:
        lines += ['', 'The speed package, part by part: our builds with every part (A) and '
                      'without the part (B), medians of interleaved pairs; the share is what '
                      'the build takes longer without the part.', '', parts_table(bench)]
    if bench.reports:
        lines += ['', 'What our toolchain reported on the corpus (whole output in logs/):', '',
                  reports(bench)]
    lines += ['', f'The bench took {(time.perf_counter() - started) / 60:.1f} min.']
    text = '\n'.join(lines) + '\n'
    (work / 'results.md').write_text(text, encoding='utf-8')
    print('\n' + text)
    print(f'written to {work / "results.md"}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
