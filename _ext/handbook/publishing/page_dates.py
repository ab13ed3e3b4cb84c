"""When each page was last changed: from git, else from the file.

Every page shows the date its source file was last changed (furo shows it at
the foot of the page; ``html_last_updated_fmt`` is its format), and its head
has ``article:modified_time``.  The date is the author date of the last
commit that changed the file (sphinx-last-updated-by-git), in the time zone
``git_last_updated_timezone``.

Where git cannot say, the date is the file's modification time, and the build
neither warns nor fails:

* a page that is not committed yet (new, or the source folder is not in git);
* the source folder is outside a git work tree (a copied or unpacked folder,
  the test roots), or git is not installed: git is not asked at all;
* a shallow clone (``git clone --depth 1``) whose history ends before the
  page's last change: sphinx-last-updated-by-git's ``git.too_shallow``
  warning is suppressed there (and everywhere its ``git.dependency_not_found``,
  a missing image or include that Sphinx reports at its line).  Publishing builds use the full history
  (the GitHub Pages workflow checks out with ``fetch-depth: 0``; Read the
  Docs unshallows after checkout).

Configuration (``conf.py``)::

    html_last_updated_fmt = '%Y-%m-%d'
    git_last_updated_timezone = 'Asia/Shanghai'
"""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.locale import _
from sphinx.util.i18n import format_date

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config


def git_state(folder: Path) -> tuple[bool, bool]:
    """``(inside a work tree, shallow)`` for the folder."""
    try:
        run = subprocess.run(
            ['git', 'rev-parse', '--is-inside-work-tree', '--is-shallow-repository'],
            cwd=folder, capture_output=True, text=True, check=False)
    except OSError:  # no git
        return False, False
    answers = run.stdout.split()
    if run.returncode != 0 or not answers or answers[0] != 'true':
        return False, False
    return True, answers[1:] == ['true']


def configure_git(app: Sphinx, config: Config) -> None:
    inside, shallow = git_state(Path(app.srcdir))
    quiet = []
    if not inside:
        config.git_exclude_patterns = ['**']  # every page: do not ask git
    elif shallow:
        quiet.append('git.too_shallow')
    # a page's missing image or include: Sphinx says it at its line (make check
    # with its fix); sphinx-last-updated-by-git said it again, at the page's
    # line 1, naming a PosixPath (a CI maintainer's round trip)
    quiet.append('git.dependency_not_found')
    config.suppress_warnings = [*config.suppress_warnings,
                                *(q for q in quiet if q not in config.suppress_warnings)]


def file_date(app: Sphinx, pagename: str, templatename: str,
              context: dict[str, Any], doctree: Any) -> None:
    """The file's modification time where git gave no date."""
    fmt = app.config.html_last_updated_fmt
    if context.get('last_updated') or fmt is None or doctree is None \
            or pagename not in app.env.found_docs:
        return
    mtime = Path(app.env.doc2path(pagename)).stat().st_mtime
    date = datetime.fromtimestamp(mtime, timezone.utc).astimezone(
        app.config.git_last_updated_timezone)
    context['last_updated'] = format_date(fmt or _('%b %d, %Y'), date=date,
                                          language=app.config.language)
    if app.config.git_last_updated_metatags:
        context['metatags'] += (f'<meta property="article:modified_time" '
                                f'content="{date.isoformat()}" />\n')


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('sphinx_last_updated_by_git')
    app.connect('config-inited', configure_git)
    # after sphinx-last-updated-by-git's (500), which sets last_updated
    app.connect('html-page-context', file_date, priority=600)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
