"""Benchmark the handbook's build at scale against plain Sphinx (``make bench``).

Generates a synthetic handbook from the real pages' structure -- by default
40 pages, about 5 MB of reStructuredText, 7,000 registry names, 20,000 card
references and 3,000 dated rulings -- then measures, each as the median of
``--runs`` runs:

* a clean ``make html`` with ``-j 1`` and with ``-j auto``;
* a rebuild with nothing changed, after one page is edited, and after one
  registry name is changed (with the number of pages read and written);
* ``make check`` (when the Makefile has it);
* peak memory (the largest process of the build);

and, in the same run, the same corpus built by plain Sphinx (furo, zh_CN, no
project extensions) with the card registry appended to every page as link
definitions -- the way existing handbooks resolve card links -- and the
time plain docutils needs just to parse the corpus (the floor).  Every
figure is printed with its ratio to the plain-Sphinx clean build.

Usage::

    make bench
    make bench BENCH_ARGS="--pages 10 --size-mb 1 --names 2000 --refs 5000 --rulings 800 --runs 1"
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

from handbook.cards.registry import fold, load  # noqa: E402

CONTENT_PAGES = ['effect-processing', 'negation', 'effect-types', 'face-down-banish']
_CARD = re.compile(r'「`([^`]+)`_」')
_RULING = re.compile(r'\\ :ruling:`([^`<]+)`|:ruling:`([^`<]+)`')
_LABEL = re.compile(r'^(\s*)\.\. _([^:]+):\s*$', re.M)
_REF = re.compile(r':ref:`([^`<]+)`')
_UNDERLINE = re.compile(r'^([=\-~^])\1{2,}$')
FAQ_URL = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={}&request_locale=ja'


# -- corpus ------------------------------------------------------------------------

@dataclass
class Corpus:
    root: Path
    ours: Path = field(init=False)        # pages for the handbook's toolchain
    baseline: Path = field(init=False)    # the same pages for plain Sphinx
    registry: Path = field(init=False)
    size: int = 0
    refs: int = 0
    rulings: int = 0
    names: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ours = self.root / 'ours'
        self.baseline = self.root / 'baseline'
        self.registry = self.root / 'cards.tsv'


def synthetic_names(real: list[str], count: int, rng: random.Random) -> list[str]:
    """The real registry names, then variants of them up to *count*."""
    names, seen = [], set()
    for name in real:
        if fold(name) not in seen:
            seen.add(fold(name))
            names.append(name)
    i = 0
    while len(names) < count:
        base = real[i % len(real)]
        variant = f'{base}·{chr(0x4E00 + rng.randrange(0x5000))}'
        if fold(variant) not in seen:
            seen.add(fold(variant))
            names.append(variant)
        i += 1
    return names[:count]


def blocks_of(text: str) -> list[str]:
    """The page's blocks (separated by blank lines), without its title."""
    blocks = [b for b in re.split(r'\n\s*\n', text) if b.strip()]
    # drop the page title (overline, title, underline)
    if blocks and _UNDERLINE.match(blocks[0].splitlines()[0]):
        blocks = blocks[1:]
    return blocks


def generate(root: Path, pages: int, size_mb: float, names: int, refs: int,
             rulings: int, seed: int = 1) -> Corpus:
    rng = random.Random(seed)
    corpus = Corpus(root)
    shutil.rmtree(root, ignore_errors=True)
    for d in (corpus.ours, corpus.baseline):
        d.mkdir(parents=True)
    registry = load(ROOT / 'cards.tsv')
    real = [c.name for c in registry.cards()]
    corpus.names = synthetic_names(real, names, rng)
    kinds = {c.name: c.kind for c in registry.cards()}
    with corpus.registry.open('w', encoding='utf-8') as f:
        f.write('# kind\tname\n')
        for name in corpus.names:
            f.write(f"{kinds.get(name, 'card')}\t{name}\n")

    sources = [blocks_of((ROOT / 'source' / f'{p}.rst').read_text(encoding='utf-8'))
               for p in CONTENT_PAGES]
    pool = [b for blocks in sources for b in blocks]
    per_page = int(size_mb * 1_000_000 / pages)
    # how many of the corpus's card references and dates to keep, as a share
    total_refs = sum(len(_CARD.findall(b)) for b in pool)
    total_rulings = sum(len(_RULING.findall(b)) for b in pool)
    pool_size = sum(len(b.encode()) for b in pool)
    scale = pages * per_page / pool_size
    keep_ref = min(1.0, refs / (total_refs * scale))
    keep_ruling = min(1.0, rulings / (total_rulings * scale))

    docnames = []
    for p in range(pages):
        docname = f'page{p:03d}'
        docnames.append(docname)
        ours, base = [f'{"=" * 30}\n第{p}页\n{"=" * 30}\n'], [f'{"=" * 30}\n第{p}页\n{"=" * 30}\n']
        used: set[str] = set()
        size, k = 0, rng.randrange(len(pool))
        while size < per_page:
            block = pool[k % len(pool)]
            k += 1
            block = _LABEL.sub(lambda m: f'{m[1]}.. _{m[2]}-{docname}-{k}:', block)

            def card(m: re.Match) -> str:
                if rng.random() >= keep_ref:
                    return m[1]  # thinned out: the name as plain text
                name = rng.choice(corpus.names)
                used.add(name)
                corpus.refs += 1
                return f'「`{name}`_」'

            def date(m: re.Match) -> str:
                if rng.random() >= keep_ruling:
                    return ''
                corpus.rulings += 1
                return m[0]

            block = _CARD.sub(card, block)
            block = _RULING.sub(date, block)
            # links to this page's own labels and titles would dangle once
            # they are renamed: keep their text; :ref: goes to a planned label
            block = re.sub(r'(?<!「)`([^`]+)`_(?!_)', r'\1', block)
            block = re.sub(r'(?<=\\ )([^\s`\\]+)_(?=\\ )', r'\1', block)
            block = _REF.sub(':ref:`调整中`', block)
            # headings: unique titles, all at one level (blocks come in any order)
            lines = block.split('\n')
            for i in range(1, len(lines)):
                if _UNDERLINE.match(lines[i]) and lines[i - 1].strip():
                    lines[i - 1] = f'{lines[i - 1]} {p}.{k}'
                    lines[i] = '=' * max(len(lines[i]), len(lines[i - 1].encode()))
            block = '\n'.join(lines)
            block = re.sub(r'[ \t]+$', '', block, flags=re.M)
            ours.append(block)
            base.append(to_baseline(block))
            size += len(block.encode())
        (corpus.ours / f'{docname}.rst').write_text('\n\n'.join(ours) + '\n', encoding='utf-8')
        links = '\n'.join(f'.. _`{n}`: https://ygocdb.com/card/name/{n}' for n in corpus.names)
        (corpus.baseline / f'{docname}.rst').write_text(
            '\n\n'.join(base) + '\n\n' + links + '\n', encoding='utf-8')
        corpus.size += size

    # generated pages (stubs with a directive) come along as they are
    for stub in sorted((ROOT / 'source').glob('*.rst')):
        if stub.stem not in CONTENT_PAGES and stub.stem != 'index':
            shutil.copy(stub, corpus.ours / stub.name)
            docnames.append(stub.stem)
    index = '索引\n====\n\n.. toctree::\n\n' + ''.join(f'   {d}\n' for d in docnames)
    (corpus.ours / 'index.rst').write_text(index, encoding='utf-8')
    (corpus.baseline / 'index.rst').write_text(
        '索引\n====\n\n.. toctree::\n\n' + ''.join(f'   page{p:03d}\n' for p in range(pages)),
        encoding='utf-8')
    (corpus.baseline / 'conf.py').write_text(textwrap.dedent('''\
        project = 'baseline'
        language = 'zh_CN'
        html_theme = 'furo'
        suppress_warnings = ['ref.ref']
        '''), encoding='utf-8')
    return corpus


def to_baseline(block: str) -> str:
    """The block as an existing handbook writes it: date links, no roles."""
    block = re.sub(r':ruling:`([^`<]+)`', lambda m: f'`{m[1]} <{FAQ_URL.format(19691)}>`__', block)
    block = re.sub(r':ref:`([^`<]+)`', r'\1', block)
    block = re.sub(r':strike:`([^`]+)`', r'\1', block)
    return block


# -- measuring ---------------------------------------------------------------------

@dataclass
class Run:
    seconds: float
    peak_mb: float
    output: str


def run(cmd: list[str], env: dict | None = None) -> Run:
    """Run *cmd* in a child process; its wall time and the peak RSS of its
    largest process (children included)."""
    script = ('import resource, subprocess, sys\n'
              'p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n'
              'sys.stdout.write(p.stdout + p.stderr)\n'
              'print("\\n@@maxrss", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n'
              'sys.exit(p.returncode)\n')
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, '-c', script, *cmd], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    seconds = time.perf_counter() - start
    out = proc.stdout
    m = re.search(r'@@maxrss (\d+)', out)
    if proc.returncode != 0:
        raise SystemExit(f'failed ({proc.returncode}): {" ".join(cmd)}\n{out[-3000:]}{proc.stderr[-2000:]}')
    return Run(seconds, int(m[1]) / 1024 if m else 0.0, out)


def make(target: str, corpus: Corpus, builddir: Path, jobs: str = '1', opts: str = '') -> list[str]:
    return ['make', '--no-print-directory', '-C', str(ROOT), target, f'SOURCEDIR={corpus.ours}',
            f'CARDS={corpus.registry}', f'BUILDDIR={builddir}', f'JOBS={jobs}', f'SPHINXOPTS={opts}']


def pages_in(output: str, stage: str) -> int:
    """How many documents a build's output says it read or wrote."""
    return len(set(re.findall(rf'{stage}\.\.\. \[\s*\d+%\] (\S+)', output)))


def median(runs: list[Run]) -> Run:
    middle = sorted(runs, key=lambda r: r.seconds)[len(runs) // 2]
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_mb for r in runs), middle.output)


def docutils_floor(corpus: Corpus) -> Run:
    script = textwrap.dedent(f'''\
        import pathlib
        from docutils import nodes
        from docutils.core import publish_doctree
        from docutils.parsers.rst import roles
        def generic(name, rawtext, text, lineno, inliner, options=None, content=None):
            return [nodes.inline(rawtext, text)], []
        for role in ('ruling', 'ref', 'strike'):
            roles.register_local_role(role, generic)
        for page in sorted(pathlib.Path({str(corpus.ours)!r}).glob('page*.rst')):
            publish_doctree(page.read_text(encoding='utf-8'),
                            settings_overrides={{'report_level': 5, 'halt_level': 5}})
        ''')
    return run([sys.executable, '-c', script])


def measure(corpus: Corpus, runs: int, work: Path) -> list[tuple[str, Run, str]]:
    python = str(ROOT / '.venv' / 'bin' / 'python')
    results: list[tuple[str, Run, str]] = []

    def clean_build(name: str, cmd_for, note: str = '') -> Run:
        samples = []
        for i in range(runs):
            out = work / f'{re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")}-{i}'
            shutil.rmtree(out, ignore_errors=True)
            samples.append(run(cmd_for(out)))
        result = median(samples)
        results.append((name, result, note))
        return result

    base = clean_build('plain Sphinx + appended link targets, -j 1 (baseline)', lambda out: [
        python, '-m', 'sphinx', '-q', '-b', 'html', '-j', '1', str(corpus.baseline), str(out / 'html')])
    results.append(('plain docutils, parse only (floor)', median([docutils_floor(corpus) for _ in range(runs)]), ''))
    clean_build('handbook make html, -j 1', lambda out: make('html', corpus, out, '1'))
    clean_build('handbook make html, -j auto', lambda out: make('html', corpus, out, 'auto'))

    # incremental rebuilds on one build folder
    out = work / 'incremental'
    shutil.rmtree(out, ignore_errors=True)
    run(make('html', corpus, out, '1'))
    verbose = '-v'
    samples = [run(make('html', corpus, out, '1', verbose)) for _ in range(runs)]
    r = median(samples)
    results.append(('no-change rebuild', r, f'read {pages_in(r.output, "reading sources")}, '
                                             f'wrote {pages_in(r.output, "writing output")}'))
    page = sorted(corpus.ours.glob('page*.rst'))[len(list(corpus.ours.glob('page*.rst'))) // 2]
    samples = []
    for i in range(runs):
        # an editor rewords one ruling: its page, the timeline (and whatever
        # shows that ruling) change
        text = page.read_text(encoding='utf-8')
        page.write_text(text.replace('\\ :ruling:`', f'（编辑{i}）\\ :ruling:`', 1), encoding='utf-8')
        samples.append(run(make('html', corpus, out, '1', verbose)))
    r = median(samples)
    results.append(('one ruling edited on one page', r, f'read {pages_in(r.output, "reading sources")}, '
                                           f'wrote {pages_in(r.output, "writing output")}'))
    samples = []
    text = corpus.registry.read_text(encoding='utf-8')
    name = corpus.names[-1]
    for i in range(runs):
        corpus.registry.write_text(text.replace(f'\t{name}\n', f'\t{name}\t\thttps://example.org/{i}\n'),
                                   encoding='utf-8')
        samples.append(run(make('html', corpus, out, '1', verbose)))
    corpus.registry.write_text(text, encoding='utf-8')
    using = sum(1 for p in corpus.ours.glob('page*.rst') if f'「`{name}`_」' in p.read_text(encoding='utf-8'))
    r = median(samples)
    results.append(('one registry name changed', r, f'{using} pages use it; read '
                                                    f'{pages_in(r.output, "reading sources")}, wrote '
                                                    f'{pages_in(r.output, "writing output")}'))
    makefile = (ROOT / 'Makefile').read_text(encoding='utf-8')
    if re.search(r'^check:', makefile, re.M):
        samples = [run(make('check', corpus, work / 'check', '1')) for _ in range(runs)]
        results.append(('make check', median(samples), ''))
    return [(name, r, note) for name, r, note in results], base


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--pages', type=int, default=40)
    parser.add_argument('--size-mb', type=float, default=5.0)
    parser.add_argument('--names', type=int, default=7000)
    parser.add_argument('--refs', type=int, default=20000)
    parser.add_argument('--rulings', type=int, default=3000)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--workdir', type=Path, default=ROOT / '_build' / 'bench')
    args = parser.parse_args(argv)

    corpus = generate(args.workdir / 'corpus', args.pages, args.size_mb, args.names,
                      args.refs, args.rulings)
    print(f'corpus: {args.pages} pages, {corpus.size / 1e6:.1f} MB, {len(corpus.names)} registry '
          f'names, {corpus.refs} card references, {corpus.rulings} dated rulings; '
          f'median of {args.runs} runs; {os.cpu_count()} cores')
    results, base = measure(corpus, args.runs, args.workdir / 'builds')
    width = max(len(name) for name, _, _ in results)
    print(f'\n{"":{width}}  {"seconds":>8}  {"x baseline":>10}  {"peak MB":>8}  {"x baseline":>10}')
    for name, r, note in results:
        mem = f'{r.peak_mb:8.0f}  {r.peak_mb / base.peak_mb:10.2f}' if r.peak_mb else f'{"":8}  {"":10}'
        print(f'{name:{width}}  {r.seconds:8.2f}  {r.seconds / base.seconds:10.2f}  {mem}  {note}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
