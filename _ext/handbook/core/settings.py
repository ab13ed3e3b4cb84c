"""The handbook's own settings: ``handbook.toml`` beside its pages.

Some settings belong to the handbook being built, not to the toolchain: its
card registry, the sections it has not written yet, the words that mark a
ruling as changed, the sources it trusts for rulings, its FAQ address.  Each
handbook keeps them in a file in its source folder, ``<SOURCEDIR>/handbook.toml``
(TOML; read with the standard library's ``tomllib``), so that
``make html SOURCEDIR=../other/source`` builds the other handbook with *its*
settings, never this one's::

    # source/handbook.toml
    cards = '../cards.tsv'                  # the card registry, relative to this file
    planned_sections = ['调整中', '连锁块']   # labels of sections not written yet
    changed_markers = ['裁定变更']            # words that flag a ruling as changed
    ruling_hosts = ['www.db.yugioh-card.com']  # the only hosts ruling URLs may link (opt-in)
    faq_url = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={id}&request_locale=ja'
    faq_pages = ['faq/*']                   # pages that may be yearly FAQ pages (rulings/days.py)
    source_headers = { '推特' = 'other' }   # header words of sources, besides 数据库, wiki, 邮件, …
    superseded_markers = ['作废']            # an outdated day's note's words, besides 过时
    raw_html = false                        # trust the pages' raw HTML (handbook.core.safe_reading)
    outside_files = false                   # let pages read files outside the source folder
    meta_http_equiv = false                 # let pages set meta http-equiv (refresh)
    title = '某某裁定手册'                    # its name (pages' titles, EPUB; its own EPUB identifier)
    author = '某某编辑组'                     # its editors (copyright, EPUB publisher)
    locale_dir = '../locale'                # its catalogs (translations/), relative to this file

Every key is optional; each sets one config value (:data:`KEYS`), and
``title`` and ``author`` the values conf.py derives from them too
(:func:`_own_identity`).  The value
in force is, first to last:

1. the command line, ``-D handbook_planned_sections=a,b`` (``make … CARDS=``
   passes ``-D handbook_cards=``): Sphinx's ``Config.overrides``;
2. the settings file's key;
3. ``conf.py``'s ``handbook_*`` value (the project's neutral defaults);
4. the extension's default.

A key whose extension is not loaded is ignored.  The file is the config
value ``handbook_settings`` (default ``handbook.toml``, relative to the
source folder; ``''`` for none); a handbook without it gets conf.py's
values.  The file is read at ``config-inited``, before every other handler
of the event, so each extension sees the values in force; since they are
config values, editing the file re-reads the pages as a change of conf.py
does.

What is wrong with the file is an error ``handbook.settings`` at
``handbook.toml:<line>``, never a traceback: a file that is not UTF-8 or not
TOML (none of its keys apply), an unknown key, a value of the wrong type or
shape (a host written as a URL, a FAQ address without ``{id}``), a registry
that does not exist (that value applies all the same: the build then stops
at the registry it cannot read).  The other keys apply.

The extensions that use a setting load this one: :mod:`handbook.rulings.dates`
and :mod:`handbook.sections.planned`, so ``handbook.rulings`` and
``handbook.sections`` (a build that loads only ``handbook.cards`` ignores
the file).

Tools that need the settings without a build (``tools/fix.py``,
``tools/zh_tw.py``) call :func:`merged` with conf.py's values, or
:func:`load` for the file alone; :func:`origin` names where a value comes
from, for messages such as "remove it from planned_sections in
source/handbook.toml".
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import os
import re
import runpy
import tomllib
import unicodedata
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

#: the settings file's name in the source folder (config ``handbook_settings``)
FILENAME = 'handbook.toml'


@dataclasses.dataclass(frozen=True)
class Key:
    """One key of the settings file."""

    config: str  # the config value it sets
    shape: str  # what it must be, for messages
    example: str  # a line that is right, for messages


#: key of the settings file -> what it sets
KEYS: dict[str, Key] = {
    'cards': Key('handbook_cards', 'a path (a string), relative to the settings file',
                 "cards = 'links.rst'"),
    'planned_sections': Key('handbook_planned_sections', 'a list of labels (strings)',
                            "planned_sections = ['调整中']"),
    'changed_markers': Key('handbook_changed_markers', 'a list of words (strings)',
                           "changed_markers = ['裁定变更']"),
    'ruling_hosts': Key('handbook_ruling_hosts', 'a list of host names (strings)',
                        "ruling_hosts = ['www.db.yugioh-card.com']"),
    'faq_url': Key('handbook_faq_url', 'an http(s) URL (a string) with {id} where the FAQ id goes',
                   "faq_url = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action"
                   "?ope=5&fid={id}&request_locale=ja'"),
    'faq_pages': Key('handbook_faq_pages', 'a list of page names or glob patterns (strings)',
                     "faq_pages = ['faq/*']"),
    'source_headers': Key('handbook_source_headers',
                          "a table of header words and source kinds ('faq', 'wiki', 'mail' "
                          "or 'other')", "source_headers = { '数据库' = 'faq', '邮件' = 'mail' }"),
    'superseded_markers': Key('handbook_superseded_markers', 'a list of words (strings)',
                              "superseded_markers = ['过时']"),
    # the handbook's own name and editors, where it is built with this project's
    # conf.py: its pages' titles, its EPUB's (an adopter's round trip: the
    # adopter's site and EPUB carried this project's name and identifier)
    'title': Key('project', "a string, the handbook's name", "title = '某某裁定手册'"),
    'author': Key('author', "a string, its editors' name", "author = '某某编辑组'"),
    # its catalogs, where its translated editions come from (handbook.translations):
    # with this project's conf.py, an adopter's zh_TW edition read this project's
    'locale_dir': Key('handbook_locale_dir', 'a path (a string), relative to the settings file',
                      "locale_dir = '../locale'"),
    # what a page may do (handbook.core.safe_reading): off unless every writer is trusted
    'raw_html': Key('handbook_raw_html', 'true or false', 'raw_html = true'),
    'outside_files': Key('handbook_outside_files', 'true or false', 'outside_files = true'),
    'meta_http_equiv': Key('handbook_meta_http_equiv', 'true or false', 'meta_http_equiv = true'),
}
#: the keys whose value is true or false
SWITCHES = frozenset({'raw_html', 'outside_files', 'meta_http_equiv'})
#: the source kinds a header word may name (handbook.rulings.days)
SOURCE_KINDS = ('faq', 'wiki', 'mail', 'other')

#: "(at line 3, column 7)" in tomllib's messages
_TOML_AT = re.compile(r'\s*\(at line (\d+), column \d+\)|\s*\(at end of document\)')
#: a host name as ruling_hosts holds it: letters, digits, dots, hyphens
_HOST = re.compile(r'^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$')


@dataclasses.dataclass(frozen=True)
class Problem:
    line: int
    message: str


@dataclasses.dataclass(frozen=True)
class Settings:
    """What one settings file says."""

    path: Path
    #: config name -> value (``handbook_cards`` as an absolute path)
    values: dict[str, Any]
    #: config name -> the line of its key
    lines: dict[str, int]
    problems: tuple[Problem, ...]


def load(path: Path) -> Settings:
    """Read and check the settings file *path* (which exists); never raises
    for its content: what is wrong is in :attr:`Settings.problems`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        return Settings(path, {}, {}, (Problem(1, f'cannot read the settings file: '
                                                  f'{err.strerror or err}'),))
    try:
        text = data.decode('utf-8-sig')
    except UnicodeDecodeError as err:
        line = data.count(b'\n', 0, err.start) + 1
        return Settings(path, {}, {}, (Problem(line, (
            f'the settings file is not UTF-8 (byte 0x{data[err.start]:02x}); '
            'save it as UTF-8: none of its settings apply')),))
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        m = _TOML_AT.search(message)
        line = int(m[1]) if m and m[1] else max(1, len(text.splitlines()))  # its last line
        what = _TOML_AT.sub('', message).rstrip('.')
        if what.startswith('Unclosed'):  # where it opens, not where the parser gave up
            line = _opened_at(text, line)
        return Settings(path, {}, {}, (Problem(line, (
            f'the settings file is not valid TOML: {what}; write each setting as '
            f"key = value, e.g. {KEYS['planned_sections'].example}: none of its "
            'settings apply')),))
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    for key, value in table.items():
        line = _line_of(text, key)
        spec = KEYS.get(key)
        if spec is None:
            problems.append(Problem(line, (
                f'unknown setting {key!r}; the settings are {", ".join(sorted(KEYS))} '
                f'(e.g. {KEYS["planned_sections"].example})')))
            continue
        checked, problem = _check(key, value, path)
        if problem:
            problems.append(Problem(line, f'setting {key!r} {problem}'))
            if checked is None:
                continue
        values[spec.config] = checked
        lines[spec.config] = line
    return Settings(path, values, lines, tuple(problems))


def _check(key: str, value: Any, path: Path) -> tuple[Any, str | None]:
    """``(value to use or None, what is wrong and the fix, or None)``."""
    spec = KEYS[key]
    wrong = f'must be {spec.shape}, not {_describe(value)}; e.g. {spec.example}'
    if key in SWITCHES:
        return (value, None) if isinstance(value, bool) else (None, wrong)
    if key in ('title', 'author'):
        if not isinstance(value, str) or not value.strip():
            return None, wrong
        # the pages' rule (core.hostile_input): a soft hyphen reached every page
        # unsaid (a round trip)
        hidden = sorted({f'U+{ord(c):04X}' for c in value
                         if unicodedata.category(c) in ('Cc', 'Cf')})
        if hidden:
            return None, (f'holds the invisible or control character{"s" * (len(hidden) > 1)} '
                          f'{", ".join(hidden)}: delete {"them" if len(hidden) > 1 else "it"}')
        return value.strip(), None
    if key in ('cards', 'faq_url', 'locale_dir'):
        if not isinstance(value, str) or not value.strip():
            return None, wrong
        if key == 'locale_dir':
            # it need not exist yet: make intl-update creates it
            folder = (path.parent / value).resolve()
            if folder.exists() and not folder.is_dir():
                return None, (f'names {value!r}, which is a file ({folder}); write the path '
                              'of the folder of the catalogs (<language>/LC_MESSAGES/*.po) '
                              'relative to the settings file')
            return str(folder), None
        if key == 'cards':
            registry = (path.parent / value).resolve()
            if not registry.is_file():
                # used all the same: the build stops at the registry it cannot read
                return str(registry), (f'names {value!r}, which is not a file ({registry}); '
                                       'write the path of the card registry relative to '
                                       'the settings file')
            return str(registry), None
        parts = urlsplit(value)
        if parts.scheme not in ('http', 'https') or not parts.netloc or '{id}' not in value:
            return None, f'must be {spec.shape}, not {value!r}; e.g. {spec.example}'
        unsafe = _link_problem(value.replace('{id}', '1'))
        if unsafe:  # a user name before the host, a backslash: not the host it shows
            return None, f'{unsafe}: {value!r}; e.g. {spec.example}'
        return value, None
    if key == 'source_headers':
        if not isinstance(value, dict):
            return None, wrong
        if not all(word.strip() for word in value):
            return None, f'has an empty header word; e.g. {spec.example}'
        for word, kind in value.items():
            if kind not in SOURCE_KINDS:
                return None, (f'gives the header {word!r} the kind {kind!r}; the kinds are '
                              f'{", ".join(SOURCE_KINDS)}: e.g. {spec.example}')
        return dict(value), None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return None, wrong
    if key == 'ruling_hosts':
        for host in value:
            if not _HOST.match(host):
                name = urlsplit(host if '//' in host else f'//{host}').hostname
                fix = f'write {name!r}' if name and name != host and _HOST.match(name) \
                    else f'e.g. {spec.example}'
                return None, f'holds {host!r}, which is not a host name; {fix}'
    return list(value), None


def _link_problem(url: str) -> str | None:
    """Why *url* may not be a link (the pages' links' policy,
    :mod:`handbook.core.url_policy`), or None.  Outside the venv (the make
    targets that read the file with the standard library alone) it is not
    asked: the build asks it."""
    try:
        from handbook.core import url_policy
    except ImportError:
        return None
    return url_policy.problem(url)


def _describe(value: Any) -> str:
    if isinstance(value, str):
        return 'a string' if value.strip() else 'an empty string'
    if isinstance(value, list):
        return ('a list' if all(isinstance(v, str) and v.strip() for v in value)
                else 'a list with an empty or non-string item')
    kinds = {bool: 'true/false', int: 'a number', float: 'a number', dict: 'a table'}
    return kinds.get(type(value), 'a date or time')


#: a setting whose value opens a list or a table (which it may close on its line)
_OPENS = re.compile(r'\s*[^#=\s][^=]*=\s*(?P<open>[\[{])(?P<rest>.*)$')
#: a TOML string, or a comment to the line's end
_QUOTED_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|#.*$')


def _opened_at(text: str, line: int) -> int:
    """The line, at *line* or before it, whose setting opens the list or
    table TOML found unclosed at *line* (the next setting's line, or the
    file's end: a round trip was told the line after its slip)."""
    lines = text.split('\n')
    for number in range(min(line, len(lines)), 0, -1):
        m = _OPENS.match(lines[number - 1])
        if m is None:
            continue
        rest = _QUOTED_OR_COMMENT.sub('', m['rest'])  # a ] in a string or a comment closes nothing
        closing = ']' if m['open'] == '[' else '}'
        if rest.count(closing) <= rest.count(m['open']):
            return number
    return line


def _line_of(text: str, key: str) -> int:
    """The line where *key* is set (a top-level ``key =`` or ``[key]``)."""
    quoted = re.escape(key)
    pattern = re.compile(rf'^[ \t]*(?:{quoted}|"{quoted}"|\'{quoted}\')[ \t]*[=.]'
                         rf'|^[ \t]*\[+[ \t]*(?:{quoted}|"{quoted}"|\'{quoted}\')[ \t]*[\].]', re.M)
    m = pattern.search(text)
    return text.count('\n', 0, m.start()) + 1 if m else 1


def settings_path(srcdir: str | os.PathLike[str], name: str = FILENAME) -> Path | None:
    """The settings file of the handbook in *srcdir* (config
    ``handbook_settings``), or None."""
    return (Path(srcdir) / name).resolve() if name else None


class _NoTags:
    """Sphinx's ``tags`` as a ``conf.py`` read outside a build sees them: none
    set (the default edition), and any may be added."""

    def __init__(self) -> None:
        self.set: set[str] = set()

    def has(self, tag: str) -> bool:
        return tag in self.set

    __contains__ = has

    def add(self, tag: str) -> None:
        self.set.add(tag)

    def remove(self, tag: str) -> None:
        self.set.discard(tag)

    def __iter__(self):
        return iter(self.set)


def conf_values(confdir: str | os.PathLike[str]) -> dict[str, Any]:
    """The names a handbook's ``conf.py`` in *confdir* defines, run as Sphinx
    runs it (in its folder, with ``tags``), for the tools that read it
    outside a build (``make fix``, ``make autolink``, ``make intl-zh_TW``,
    ``make linkcheck-changed``, ``make preview``); ``{}`` without one."""
    path = Path(confdir).resolve() / 'conf.py'
    if not path.is_file():
        return {}
    with contextlib.chdir(path.parent):
        return runpy.run_path(str(path), init_globals={'tags': _NoTags()})


def merged(conf: Mapping[str, Any], srcdir: str | os.PathLike[str]) -> dict[str, Any]:
    """conf.py's values (*conf*, :func:`conf_values`) with the
    settings file's on top: what a build uses, without the command line and
    the extensions' defaults.  The file's problems are left out (a build
    reports them)."""
    path = settings_path(srcdir, conf.get('handbook_settings', FILENAME))
    values = dict(conf)
    if path is not None and path.is_file():
        values.update(load(path).values)
    return values


def origin(config: Config, srcdir: str | os.PathLike[str], name: str) -> str:
    """Where the value of the config value *name* comes from, for messages:
    ``'the -D handbook_x option'``, ``'<settings file>'`` or ``'conf.py'``
    (paths relative to the current folder when inside it)."""
    if name in config.overrides:
        return f'the command line option -D {name}=…'
    key = next(k for k, spec in KEYS.items() if spec.config == name)
    path = settings_path(srcdir, config.handbook_settings)
    if path is not None and path.is_file() and name in load(path).values:
        return f'{key} in {_shown(path)}'
    return f'{name} in conf.py'


def where(config: Config, srcdir: str | os.PathLike[str], confdir: str | os.PathLike[str],
          name: str) -> str | None:
    """``path:line`` where the config value *name* is set, for messages: its
    key's line in the settings file, else its line in ``conf.py``; None where
    the command line sets it (``-D``: no file holds it, :func:`origin` says so)."""
    if name in config.overrides:
        return None
    key = next(k for k, spec in KEYS.items() if spec.config == name)
    path = settings_path(srcdir, config.handbook_settings)
    if path is not None and path.is_file() and name in load(path).values:
        return f'{path}:{_line_of(path.read_text(encoding="utf-8"), key)}'
    conf = Path(confdir) / 'conf.py'
    try:
        return f'{conf}:{_line_of(conf.read_text(encoding="utf-8"), name)}'
    except OSError:
        return str(conf)


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def apply(app: Sphinx, config: Config) -> None:
    """``config-inited``: the settings file's values, where the command line
    does not set them."""
    # here, not at the top: reading the file needs no Sphinx (the make
    # targets that do not build read it with the standard library alone,
    # tools/handbook_settings.py); only a build's messages do
    from handbook.core import reports

    path = settings_path(app.srcdir, config.handbook_settings)
    if path is None:
        return
    if not path.is_file():
        if config.handbook_settings != FILENAME:
            reports.error(f'the settings file {config.handbook_settings!r} (handbook_settings) '
                          f'is not a file ({path}); create it, or set handbook_settings = \'\'',
                          location=f'{path}:1', subtype='settings')
        return
    settings = load(path)
    for problem in settings.problems:
        reports.error(problem.message, location=f'{path}:{problem.line}', subtype='settings')
    for name, value in settings.values.items():
        if name in config and name not in config.overrides:
            config[name] = value
    _own_identity(config, settings.values)


def _own_identity(config: Config, values: dict[str, Any]) -> None:
    """The values conf.py derived from this project's name and editors, for
    the handbook's own (``title``, ``author``): the pages' title, the
    copyright, the EPUB's publisher, and its identifier, the same for the
    same name and none other's (reading apps take two books with one
    identifier for one)."""
    derived = {}
    if 'project' in values:
        name = config.project
        # text, where html_title and ogp_site_name are HTML to Sphinx, the theme and
        # sphinxext-opengraph (a hostile-input round trip: a title's <script> ran on
        # every page)
        derived['html_title'] = html.escape(name, quote=False)
        if 'ogp_site_name' in config and config.ogp_site_name is None:  # its default: the name
            derived['ogp_site_name'] = html.escape(name)
        derived['epub_identifier'] = f'urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, "handbook:" + name)}'
    if 'author' in values:
        derived['copyright'] = derived['epub_publisher'] = config.author
    for name, value in derived.items():
        if name in config and name not in config.overrides:
            config[name] = value


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value('handbook_settings', FILENAME, 'env', types=frozenset({str}),
                         description="the handbook's settings file, relative to the source "
                                     "folder ('' for none)")
    # before every other handler: links.py excludes the registry from the pages
    app.connect('config-inited', apply, priority=100)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
