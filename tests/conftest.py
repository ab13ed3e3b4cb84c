"""Test set-up: sphinx.testing fixtures, test roots in tests/roots/."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))
sys.path.insert(0, str(Path(__file__).resolve().parent))

pytest_plugins = ('sphinx.testing.fixtures',)
collect_ignore = ['roots']


def pytest_configure(config: pytest.Config) -> None:
    # the pinned sphinx-sitemap and sphinx-notfound-page use APIs Sphinx 11 removes
    for module in ('sphinx_sitemap', 'notfound.extension'):
        config.addinivalue_line(
            'filterwarnings', f'ignore::sphinx.deprecation.RemovedInSphinx11Warning:{module}')


@pytest.fixture(scope='session')
def rootdir() -> Path:
    return Path(__file__).resolve().parent / 'roots'


def pytest_collection_modifyitems(config, items):
    """Browser tests last: Playwright keeps threads running for the session,
    and a parallel Sphinx build forks; forking a process with running threads
    can deadlock the child (a lock held by another thread at the fork)."""
    items.sort(key=lambda item: 'tests/browser/' in item.nodeid)
