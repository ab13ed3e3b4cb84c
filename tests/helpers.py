"""Assertions shared by the tests, and the builds of the real handbook they share."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import html as html_module
import http.server
import json
import os
import posixpath
import re
import socketserver
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import jinja2
import pytest
from jinja2.bccache import Bucket
from sphinx.jinja2glue import BuiltinTemplateLoader
from sphinx.testing.util import SphinxTestApp
from sphinx.util.console import strip_escape_sequences

ROOT = Path(__file__).resolve().parent.parent
#: whether this run builds with the speed package (``make test SPEED=off``: without)
SPEED = os.environ.get('HANDBOOK_SPEED', 'on') != 'off'
#: the extension of the speed package (conf.py loads it)
SPEED_EXTENSION = 'handbook.speed'


def with_speed(extensions: list[str]) -> list[str]:
    """*extensions*, with the speed package last where this run wants it and
    a handbook extension is among them, else without it."""
    without = [name for name in extensions if name != SPEED_EXTENSION]
    if SPEED and any(name.startswith('handbook.') for name in without):
        return [*without, SPEED_EXTENSION]
    return without


def sphinxopts() -> str:
    """``make``'s ``SPHINXOPTS`` for the real handbook's builds in the tests:
    quiet, with the speed package as this run wants."""
    return 'SPHINXOPTS=' + ' '.join(['-q', *speed_options()])


def speed_options() -> list[str]:
    """``sphinx-build`` options that build the project's conf.py as this
    run wants: ``-D extensions=…`` without the speed package where it is off."""
    if SPEED:
        return []
    from sphinx.config import Config
    from sphinx.util.tags import Tags

    extensions = with_speed(list(Config.read(ROOT, overrides={}, tags=Tags()).extensions))
    return ['-D', f'extensions={",".join(extensions)}']


def warnings(app) -> list[str]:
    """The build's warnings, one string per warning, paths relative to srcdir
    (``index.rst:12: WARNING: … [handbook.card]``)."""
    text = strip_escape_sequences(app.warning.getvalue())
    text = text.replace(str(app.srcdir) + '/', '')
    return [w for w in text.splitlines() if w.strip()]


def assert_no_warnings(app) -> None:
    found = warnings(app)
    assert found == [], '\n'.join(found)


def html(app, docname: str = 'index') -> str:
    return (app.outdir / f'{docname}.html').read_text(encoding='utf-8')


def moved_anchors(app, docname: str) -> dict[str, list[str]]:
    """The map on page *docname* of a split list from each part's page to the
    old anchors it holds (render/split_pages.py, ``moved_anchors``)."""
    return json.loads(re.search(r'<script type="application/json" id="handbook-moved-anchors">'
                                r'(.*?)</script>', html(app, docname))[1])


class SharedBuild(SphinxTestApp):
    """The app of a build that several tests of a module share
    (``@pytest.mark.test_params(shared_result=key)``, see conftest.py's
    ``make_app``): the first :meth:`build` builds, and a file beside the
    output folder keeps what it printed (status and warnings); a later app of
    the same key does not build again, its streams say what the build said,
    and its environment is the build's (pickled).

    sphinx.testing's own wrapper skips a build where the output folder is not
    empty, but the handbook writes its readers' script there when the builder
    starts (publishing/reader_tools.py); and its ``shared_result`` keeps the
    streams for the tests of one module in a row only, where a test run on
    this file's terms may come back to a module later."""

    def __init__(self, *args: Any, owner: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner

    def build(self, force_all: bool = False, filenames: Sequence[Path] = ()) -> None:
        done = Path(self.outdir).with_name(f'{Path(self.outdir).name}.built.json')
        if done.is_file():
            said = json.loads(done.read_text(encoding='utf-8'))
            assert said['owner'] == self.owner, \
                f'the shared build {Path(self.srcdir).name!r} is also {said["owner"]}\'s'
            for stream, text in ((self.status, said['status']), (self.warning, said['warning'])):
                stream.seek(0)
                stream.truncate()
                stream.write(text)
            return
        super().build(force_all, filenames)
        done.write_text(json.dumps({'owner': self.owner, 'status': self.status.getvalue(),
                                    'warning': self.warning.getvalue()}), encoding='utf-8')


class PagesWritten:
    """The pages a build writes (``html-page-context``), in whichever process
    writes them: a serial build writes its last pages (the timeline) in a
    process of its own (handbook/speed/writing.py).  Called once the build is
    done: the pages, in the order they were written."""

    def __init__(self, app) -> None:
        handle, name = tempfile.mkstemp(prefix='pages-written-', suffix='.txt')
        os.close(handle)
        self.path = Path(name)
        app.connect('html-page-context', self.note)

    def note(self, app, pagename: str, *args) -> None:
        with self.path.open('a', encoding='utf-8') as out:
            out.write(f'{pagename}\n')

    def __call__(self) -> list[str]:
        pages = self.path.read_text(encoding='utf-8').splitlines()
        self.path.unlink()
        return pages


def written_by(make_app, srcdir, **kwargs) -> tuple[Any, set[str]]:
    """Build *srcdir* again (its previous build kept): the app, and the pages
    it wrote (``html-page-context``)."""
    app = make_app('html', srcdir=srcdir, **kwargs)
    written = PagesWritten(app)
    app.build()
    return app, set(written())


def card_targets(page: str) -> list[tuple[str, str, str]]:
    """``(name as written, target, label)`` of every card link of the HTML
    *page*, the target and label of its § as the readers' tools
    (``publishing/reader_tools.js``) make them: the script's ``data-card-page``
    and ``data-card-label``, the link's ``data-card`` or the id derived from its
    name; the target relative to the page, not quoted ('', '' where it has none)."""
    from handbook.listings.card_index import derived_id

    script = re.search(r'<script ([^>]*)src="[^"]*reader_tools\.js', page)
    attributes = dict(re.findall(r'(data-[\w-]+)="([^"]*)"', script[1])) if script else {}
    template = html_module.unescape(attributes.get('data-card-page', ''))
    label = html_module.unescape(attributes.get('data-card-label', ''))
    root = re.search(r'data-content_root="([^"]*)"', page)[1]
    found = []
    for link in re.finditer(r'<a class="card-link[^"]*"([^>]*)>(.*?)</a>', page, re.S):
        name = html_module.unescape(re.sub(r'<[^>]+>', '', link[2]))
        given = re.search(r' data-card="([^"]*)"', link[1])
        ident = html_module.unescape(given[1]) if given else derived_id(name)
        if not template or not ident:
            found.append((name, '', ''))
            continue
        found.append((name, posixpath.normpath(root + template.replace('{}', ident)),
                      label.replace('{}', name)))
    return found


def links(app, docname: str = 'index') -> list[tuple[str, str, str]]:
    """``(kind, href, text)`` of every card link (class ``card-link``), where
    kind is ``card`` or ``series``."""
    found = re.findall(r'<a class="card-link card-(\w+) [^"]*" href="([^"]*)"[^>]*>(.*?)</a>',
                       html(app, docname), re.S)
    return [(kind, href, re.sub(r'<[^>]+>', '', text)) for kind, href, text in found]


# -- the templates' code, compiled once per test run --------------------------------------

#: the environment variable that names the folder of :class:`CachedTemplates`
TEMPLATE_CACHE = 'HANDBOOK_TEST_TEMPLATE_CACHE'


class TemplateBytecode(jinja2.FileSystemBytecodeCache):
    """jinja2's bytecode cache, a template's code filed by its name and file
    and by what compiling it depends on in the environment: the extensions
    (``jinja2.ext.i18n`` in a translated build) and the filters and tests
    with the arguments they take.  jinja2 itself checks the source."""

    def get_bucket(self, environment: jinja2.Environment, name: str, filename: str | None,
                   source: str) -> Bucket:
        def known(table: dict[str, Any]) -> list[tuple[str, str]]:
            return sorted((key, '{0.__module__}.{0.__qualname__}:{1}'.format(
                value if callable(value) and hasattr(value, '__qualname__') else type(value),
                getattr(value, 'jinja_pass_arg', None))) for key, value in table.items())

        flavour = repr((sorted(environment.extensions), known(environment.filters),
                        known(environment.tests), environment.autoescape))
        bucket = Bucket(environment, self.get_cache_key(f'{name}|{flavour}', filename),
                        self.get_source_checksum(source))
        self.load_bytecode(bucket)
        return bucket


class CachedTemplates(BuiltinTemplateLoader):
    """Sphinx's template loader, with :class:`TemplateBytecode` in the folder
    :data:`TEMPLATE_CACHE` names: every test build's (``template_bridge``,
    set by conftest's ``make_app``).  Compiling the theme's templates took a
    tenth of a second a build, and the suite makes hundreds of builds: each
    template is compiled once a run, by whichever build of whichever
    pytest-xdist worker needs it first.  The pages are the same."""

    def init(self, builder, theme=None, dirs=None) -> None:
        super().init(builder, theme, dirs)
        folder = os.environ.get(TEMPLATE_CACHE)
        if folder:
            self.environment.bytecode_cache = TemplateBytecode(folder)


# -- builds of the real handbook, once per test run ------------------------------------------

#: the address the suite's builds of the real handbook are given, as the GitHub
#: Pages workflow gives its own (``make html BASEURL=…``): canonical links, og:url,
#: the sitemap and the feed are made from it.  At the root of its host, as the
#: browser tests serve the site (the 404 page's links are absolute paths); an
#: address with a folder is test-publishing's
PUBLISHED = 'https://ocg.example.org/'

#: where tests/browser/conftest.py's screenshot folder is kept for pytest's summary
SCREENSHOTS = pytest.StashKey[Path]()


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This test run's temporary folder, the same for every pytest-xdist worker
    (a worker's own folder is a subfolder of it, ``popen-gw0``)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get('PYTEST_XDIST_WORKER') else base


def once(tmp_path_factory: pytest.TempPathFactory, name: str, work: Callable[[Path], dict]) -> dict:
    """``work(folder)`` done once per test run, in ``folder`` (the run's
    folder *name*), and what it returned (JSON).  pytest-xdist's workers are
    processes, each with its own session fixtures: the first to ask does the
    work while the others wait for it (a lock), then all read its result."""
    root = run_folder(tmp_path_factory)
    folder, result = root / name, root / f'{name}.json'
    with open(root / f'{name}.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not result.exists():
            folder.mkdir(exist_ok=True)
            result.write_text(json.dumps(work(folder)), encoding='utf-8')
        return json.loads(result.read_text(encoding='utf-8'))


@dataclasses.dataclass(frozen=True)
class Build:
    """A build of the real handbook: the folder it was built into, and what
    the command said."""

    out: Path
    returncode: int
    stderr: str
    stdout: str = ''

    @property
    def html(self) -> Path:
        return self.out / 'html'

    @property
    def doctrees(self) -> Path:
        return self.out / 'doctrees'


def build_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               command: Callable[[Path], list[str]], **options: Any) -> Build:
    """Run the build ``command(folder)`` once per test run (see :func:`once`),
    from the repository; *options* go to :func:`subprocess.run`.  Every test
    that asks for the build *name* must ask for the same command."""
    folder = run_folder(tmp_path_factory) / name

    def build(folder: Path) -> dict:
        run = subprocess.run(command(folder), capture_output=True, text=True, cwd=ROOT,
                             check=False, **options)
        return {'command': run.args, 'returncode': run.returncode, 'stderr': run.stderr,
                'stdout': run.stdout}

    done = once(tmp_path_factory, name, build)
    assert done['command'] == command(folder), \
        f'the build {name!r} was made by another command: {done["command"]}'
    return Build(folder, done['returncode'], done['stderr'], done['stdout'])


def make_command(*args: str) -> list[str]:
    """``make`` in the repository, as a reader types it (silent)."""
    return ['make', '-s', '-C', str(ROOT), *args]


# -- a site served on localhost (the browser tests) ------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # no line per request


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return  # the browser went on before a file was sent whole: not an error
        super().handle_error(request, client_address)


@contextlib.contextmanager
def running(server: socketserver.BaseServer) -> Iterator[socketserver.BaseServer]:
    """*server* serving in a thread while the block runs, then closed.  It
    looks for a shutdown request every 10 ms: at Python's default, half a
    second, every test that starts a server would wait that long to stop it."""
    threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.01},
                     daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """Serve the folder *root* on 127.0.0.1 while the block runs: its base URL."""
    server = _QuietServer(('127.0.0.1', 0), functools.partial(_QuietHandler, directory=str(root)))
    with running(server):
        yield f'http://127.0.0.1:{server.server_address[1]}/'


_SEARCH_PART = re.compile(r'RulingSearch\.addPart\("(\w+)","(\w+)",(.*)\);\n', re.S)


def search_manifest(app) -> dict:
    """The search index's manifest (``_static/rulings-index.js``; *app*: a
    Sphinx app, or the folder of a built site)."""
    text = (Path(getattr(app, 'outdir', app)) / '_static' / 'rulings-index.js').read_text(
        encoding='utf-8')
    assert text.startswith('RulingSearch.setIndex(') and text.endswith(');\n')
    return json.loads(text[len('RulingSearch.setIndex('):-len(');\n')])


def search_parts(app) -> dict[str, object]:
    """Every part of the search index, by name; each is of the manifest's epoch."""
    epoch = search_manifest(app)['epoch']
    found = {}
    for path in (Path(getattr(app, 'outdir', app)) / '_static' / 'search').iterdir():
        name, of, data = _SEARCH_PART.fullmatch(path.read_text(encoding='utf-8')).groups()
        assert f'{name}.js' == path.name and of == epoch
        found[name] = json.loads(data)
    return found


def search_answers(app) -> dict:
    """What the index of *app*'s build answers, whatever ids its documents
    have (an incremental build keeps the ids of the last, where a clean
    build lays them out in order: layout.py): each key's documents, each
    shown as its chunk entry says (its sections by page and id); the
    rulings newest first, the texts and the sections in page order, by
    their ranks; and what the manifest says besides the ids.  *app*: a
    Sphinx app, or the folder of a built site."""
    from handbook.search.shards import ungapped

    found, index = search_parts(app), search_manifest(app)
    first, chunk = index['texts'], index['chunk']
    ranks = dict(index.get('ranks', []))
    section_ranks = dict(index.get('section_ranks', []))

    def section(number: int) -> tuple:
        page, ident, title, top = index['sections'][number]
        return index['pages'][page][0], ident, title, top

    def shown(doc: int) -> str:
        if doc < first:
            number, block = found[f'b{doc // chunk}'][doc % chunk]
            return json.dumps(['text', section(number), block], ensure_ascii=False)
        text, other, keys, places, *struck = found[f'r{(doc - first) // chunk}'][(doc - first) % chunk]
        return json.dumps(['ruling', text, other, keys,
                           [[section(place[0]), *place[1:]] for place in places], struck],
                          ensure_ascii=False)

    grams: dict[str, list] = {}
    chars, months, spellings = {}, {}, {}
    for part in found.values():
        if not isinstance(part, dict):  # chunks, s and t are lists
            continue
        for gram, entry in part.get('g', {}).items():
            docs = ungapped(entry[0::2])
            grams[gram] = sorted((shown(doc), json.dumps(where)) for doc, where in zip(docs, entry[1::2]))
        for char, gaps in part.get('c', {}).items():
            chars[char] = sorted(map(shown, ungapped(gaps)))
        for month, days in part.get('d', {}).items():
            months[month] = {day: sorted(map(shown, ungapped(gaps)))
                             for day, gaps in days.items()}
        spellings.update(part.get('n', {}))
    of = found['s']
    docs = [doc for doc, at in enumerate(of) if at is not None]
    return {
        'grams': grams, 'chars': chars, 'months': months, 'spellings': spellings,
        'sections of': sorted((shown(doc), json.dumps([section(n) for n in (
            [of[doc]] if isinstance(of[doc], int) else of[doc])])) for doc in docs),
        'rulings': [shown(doc) for doc in sorted((doc for doc in docs if doc >= first),
                                                 key=lambda doc: -ranks.get(doc, doc))],
        'texts': [shown(doc) for doc in sorted((doc for doc in docs if doc < first),
                                               key=lambda doc: ranks.get(doc, doc))],
        'sections': [section(n) for n in sorted(
            (n for n, value in enumerate(index['sections']) if value is not None),
            key=lambda n: section_ranks.get(n, n))],
        **{key: index[key] for key in ('format', 'labels', 'pages', 'chunk', 'script')},
        't': found.get('t'),
    }


def whole_list(outdir, docname: str) -> str:
    """A split list -- the timeline, the card index (render/split_pages.py)
    -- as one page: the page *docname* in *outdir*, then each of its parts
    in the order the page links them, the parts' links written from the
    page's folder (``../p1.html`` as ``p1.html``), as the whole list's were."""
    outdir = Path(outdir)
    page = (outdir / f'{docname}.html').read_text(encoding='utf-8')
    base = docname.rpartition('/')[2]
    parts = dict.fromkeys(re.findall(rf'href="({re.escape(base)}/[^"#/]+\.html)"', page))
    folder = outdir / docname
    texts = [(folder.parent / part).read_text(encoding='utf-8') for part in parts]
    return page + ''.join(text.replace('href="../', 'href="') for text in texts)
