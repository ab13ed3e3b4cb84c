"""Test set-up: sphinx.testing fixtures, test roots in tests/roots/, and the
real handbook built once for every test that reads it (``handbook_build``).

``make test`` runs the suite on one pytest-xdist worker per core (``-n auto``);
each build of the real handbook is made once per run, by the first worker that
needs it, and read by all (``helpers.once``)."""

from collections.abc import Iterator
from io import StringIO
import os
import runpy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from helpers import (  # noqa: E402  (the path above)
    PUBLISHED,
    SCREENSHOTS,
    TEMPLATE_CACHE,
    Build,
    SharedBuild,
    build_once,
    make_command,
    run_folder,
    speed_options,
    with_speed,
    sphinxopts,
)

pytest_plugins = ('sphinx.testing.fixtures',)
collect_ignore = ['roots']


@pytest.fixture
def make_app(make_app, test_params, request):
    """sphinx.testing's ``make_app``, the speed package on or off as the run
    asks (``HANDBOOK_SPEED``, :func:`helpers.with_speed`) in every root that
    loads a handbook extension (where the test does not give the extensions
    itself); and, for a root that leaves
    ``html_search_options`` alone, no dictionary file for Sphinx's own
    Chinese search (``sphinx.search.zh`` loads jieba's whole dictionary,
    350,000 words, into jieba's global tokenizer again at every HTML build:
    a second each time, and each load adds to the word counts of the last;
    jieba loads it once per process by itself); and, for a root that names
    no ``template_bridge``, Sphinx's template loader with jinja2's bytecode
    kept for the whole run (``helpers.CachedTemplates``).

    A test marked ``@pytest.mark.test_params(shared_result=key)`` (the key
    names the source folder, a copy of the root) gets a
    :class:`helpers.SharedBuild`: the tests of a module that mark the same
    key share one build (per pytest-xdist worker), made by the first that
    calls ``app.build()``; the others read its output, its pickled
    environment, and what it printed.  For tests that only read a build:
    not for one that patches something before it builds, or reads the
    builder's state during the writing."""
    shared = []

    def make(*args, **kwargs):
        srcdir = kwargs.get('srcdir')
        if srcdir is None and kwargs.get('testroot'):
            srcdir = Path(__file__).resolve().parent / 'roots' / f'test-{kwargs["testroot"]}'
        overrides = dict(kwargs.get('confoverrides') or {})
        if srcdir is not None and (Path(srcdir) / 'conf.py').is_file():
            config = runpy.run_path(str(Path(srcdir) / 'conf.py'))
            if 'extensions' not in overrides:  # else the test's own choice
                given = list(config.get('extensions', []))
                extensions = with_speed(given)
                if extensions != given:
                    overrides['extensions'] = extensions
            if 'html_search_options' not in overrides and not config.get('html_search_options'):
                overrides['html_search_options'] = {'dict': ''}
            if 'template_bridge' not in overrides and not config.get('template_bridge'):
                overrides['template_bridge'] = 'helpers.CachedTemplates'
            kwargs['confoverrides'] = overrides
        if not test_params['shared_result']:
            return make_app(*args, **kwargs)
        if kwargs.get('freshenv'):
            raise pytest.UsageError('a shared build reads the environment of the first: '
                                    'freshenv=True would leave it empty')
        # the streams are the build's (SharedBuild), not sphinx.testing's copy of them
        kwargs.update(status=StringIO(), warning=StringIO())
        app = SharedBuild(*args, owner=request.module.__name__, **kwargs)
        shared.append(app)
        return app

    yield make
    for app in reversed(shared):
        app.cleanup()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line('markers', 'long: a browser test of many seconds, run first of them '
                            '(pytest_collection_modifyitems)')
    # the pinned sphinx-sitemap and sphinx-notfound-page use APIs Sphinx 11 removes
    for module in ('sphinx_sitemap', 'notfound.extension'):
        config.addinivalue_line(
            'filterwarnings', f'ignore::sphinx.deprecation.RemovedInSphinx11Warning:{module}')


@pytest.fixture(scope='session', autouse=True)
def plain_output() -> Iterator[None]:
    """The tests read what ``make`` and ``sphinx-build`` print as plain text.
    A CI that forces colours (``FORCE_COLOR``, set by many runners) would
    colour it, so every process the tests start is told not to
    (``NO_COLOR`` wins over ``FORCE_COLOR`` in Sphinx and in pytest)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv('NO_COLOR', '1')
        yield


@pytest.fixture(scope='session', autouse=True)
def template_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The folder of the templates' bytecode, one for the run
    (``helpers.CachedTemplates``)."""
    folder = run_folder(tmp_path_factory) / 'template-bytecode'
    folder.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TEMPLATE_CACHE, str(folder))
        yield


@pytest.fixture(scope='session')
def rootdir() -> Path:
    return Path(__file__).resolve().parent / 'roots'


def pytest_collection_modifyitems(config, items):
    """Browser tests last: Playwright keeps threads running for the session,
    and a parallel Sphinx build forks; forking a process with running threads
    can deadlock the child (a lock held by another thread at the fork).
    pytest-xdist hands each worker its tests in this order, so on a worker too
    no test forks once its browser tests have begun.  (Hence ``--dist load``,
    the default: pytest-xdist's ``worksteal`` would hand a worker that has
    begun its browser tests another's forking tests.)

    The browser tests marked ``long`` (many seconds each) first among them: the
    run does not end with one worker busy on one of them and the other idle."""
    items.sort(key=lambda item: ('tests/browser/' in item.nodeid,
                                 item.get_closest_marker('long') is None))


@pytest.fixture(scope='session')
def handbook_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The real handbook (``source/``), built once per test run as ``make html``
    builds it (-W --keep-going, -j auto), into ``.html`` with ``.doctrees``
    beside it, for the address ``helpers.PUBLISHED`` (as ``make html BASEURL=…``).  Every
    test of the real handbook reads it, the browser tests' site included:
    never write into it.  That it builds without a warning is
    test_builds.py's test; this fails only where the build did not finish."""
    env = {k: v for k, v in os.environ.items() if k != 'READTHEDOCS_CANONICAL_URL'}
    build = build_once(tmp_path_factory, 'handbook', lambda out: [
        sys.executable, '-m', 'sphinx', '-b', 'html', '-W', '--keep-going', '-q', '-j', 'auto',
        *speed_options(), '-c', str(ROOT), '-D', f'html_baseurl={PUBLISHED}',
        '-d', str(out / 'doctrees'), str(ROOT / 'source'), str(out / 'html')],
        env=env)
    if build.returncode not in (0, 1) or not (build.html / 'index.html').is_file():
        pytest.fail(f'the handbook does not build:\n{build.stderr}', pytrace=False)
    return build


@pytest.fixture(scope='session')
def handbook_zh_tw(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The real handbook's zh_TW edition, built once per test run by ``make
    html LANGUAGE=zh_TW BASEURL=…``: the site in ``.html / 'zh_TW'``, its doctrees in
    ``.out / 'doctrees-zh_TW'``.  That it builds without a warning is
    test_translations.py's test."""
    return build_once(tmp_path_factory, 'handbook-zh_TW', lambda out: make_command(
        'html', 'LANGUAGE=zh_TW', f'BUILDDIR={out}', f'BASEURL={PUBLISHED}', sphinxopts()))


# -- the browser tests' screenshots, named in pytest's summary ----------------------------------

def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker tells the controller where its screenshots are."""
    if SCREENSHOTS in session.config.stash and hasattr(session.config, 'workeroutput'):
        session.config.workeroutput['browser_screenshots'] = str(session.config.stash[SCREENSHOTS])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    folder = getattr(node, 'workeroutput', {}).get('browser_screenshots')
    if folder:
        node.config.stash[SCREENSHOTS] = Path(folder)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if SCREENSHOTS in config.stash:
        terminalreporter.write_line(f'browser screenshots: {config.stash[SCREENSHOTS]}')
