"""Ruling search: the search page answers with the rulings themselves, before
Sphinx's sections and pages.

**What the reader gets.**  The search page (and only it) loads two static
files, ``_static/rulings_search.js`` (this module's script) and
``_static/rulings-index.js`` (every ruling, written at build time).  Above
Sphinx's results it shows a search box of its own, which answers as the
reader types, and the rulings that match, each as one item: the ruling's
text with the matches highlighted, its dates as written, small labels for
its status (class ``ruling-status``: 已推翻 for a struck ruling, 裁定变更 for
a changed one), ``页面 › 小节`` and a link to its permalink
(``page.html#ruling-…``).  Twenty are shown, the next twenty on request.  The
order is newest first (a ruling's newest date; rulings of one date in page
order); the switch 相关度 orders by relevance: first the rulings that *link*
the most query terms as cards, then the most occurrences of the terms in
the text, then the shortest text, then newest first.  Pressing Enter reloads
the page with the query, which updates Sphinx's section results too.

**Matching.**  A query is cut at spaces (only) into terms; a run of words
that is a card name of the index once joined (``DDD 反骨王 列奥尼达``) is one
term.  A
ruling matches when every term is a substring of one of its *search texts*:
its text, its dates as written (``17/3/24``) and as ISO dates
(``2017-03-24``), the registry keys of the cards it links and their names as
written.  Terms and texts are folded with :func:`handbook.core.names.fold`
(the script gets its separator class, ``CARD_NAME_SEPARATORS``), so
spacing, width, case and middle dots never matter.  So a phrase jieba cuts
(``伤害步骤``), part of a card name (``反骨王``), a date and two card names
(``月之书 强制脱出装置``: the rulings naming both) are all found.

**The Traditional edition.**  The index of a build holds that build's texts:
in a ``zh_TW`` build, the translated rulings of the store.  OpenCC cannot
run in the browser, so the build adds to each ruling whose text OpenCC's
``tw2s`` changes its Simplified counterpart, searched but never shown; a
query in either script finds the ruling (where the two texts fold to the
same length, as they almost always do, a match in the counterpart is
highlighted at the same place of the text shown).  Builds in other
languages index their text alone.

**The index** (``rulings-index.js``, a script, so that it loads from
``file://`` too)::

    RulingSearch.setIndex({"format": 1, "labels": {…},
      "pages": [[uri, title], …], "sections": [[page, id, title], …],
      "cards": [folded key or name, …],
      "rulings": [[section, anchor, text, dates, iso dates, flags, [card, …]
                   (, counterpart)], …]})

in page order; ``dates`` are space-separated as written, ``iso dates`` the
same references' ISO dates, ``flags`` 1 for changed and 2 for struck,
``cards`` indexes into ``cards``, ``labels`` the page's words in the build's
language (``handbook`` catalog).  It is written (``html-collect-pages``,
before the search page, which names it with its checksum) when a page's
rulings changed in this build (``changes(env).rulings`` of the store), or
when it is missing: a rebuild with no ruling changed does not even make it
again.  Sphinx keeps a file's checksum per process, so a second build in
one process (tests) names it with the first one's.  The current edition (``-t current``) leaves overturned rulings
out, as it does everywhere.

Configuration: none.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.locale import get_translation

from handbook.core.names import SEPARATOR_CLASS, fold
from handbook.render.anchors import page_title
from handbook.rulings import lines as ruling_lines
from handbook.store import changes

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

    from handbook.rulings.lines import Ruling

_ = get_translation('handbook')

#: bump when the shape of the index changes
FORMAT = 1
#: the files the search page loads, in the HTML folder's _static/
INDEX = 'rulings-index.js'
SCRIPT_NAME = 'rulings_search.js'
SCRIPT = Path(__file__).with_name(SCRIPT_NAME)
CHANGED, STRUCK = 1, 2
#: languages written in Traditional characters: their rulings get a Simplified counterpart
TRADITIONAL = ('zh_TW', 'zh_HK', 'zh_MO', 'zh_Hant')


def labels() -> dict[str, str]:
    """The search page's words, in the build's language."""
    return {name: str(text) for name, text in {
        'heading': _('裁定'),
        'found': _('找到 {count} 条裁定'),
        'none': _('没有找到裁定。'),
        'order': _('排序'),
        'newest': _('最新优先'),
        'relevance': _('相关度'),
        'more': _('显示更多裁定'),
        'changed': _('裁定变更'),
        'struck': _('已推翻'),
        'query': _('搜索裁定'),
        'placeholder': _('卡名、词句或日期，如 17/3/24'),
        'enter': _('按回车键也搜索页面和小节。'),
    }.items()}


@functools.cache
def _opencc(config: str) -> Callable[[str], str]:
    import opencc  # only a Traditional build needs it

    return opencc.OpenCC(config).convert


def counterpart(language: str | None) -> Callable[[str], str] | None:
    """The conversion to the other script of a build's texts, if it has one."""
    if language and language.replace('-', '_').startswith(TRADITIONAL):
        return _opencc('tw2s')
    return None


def shown(app: Sphinx, ruling: Ruling) -> bool:
    """Whether the ruling is in this edition's index."""
    return not (ruling.struck and app.tags.has('current'))


def build_index(app: Sphinx, builder: Builder) -> dict[str, Any]:
    """The index's content (see the module docstring)."""
    env: BuildEnvironment = app.env
    convert = counterpart(app.config.language)
    by_page = ruling_lines.rulings(env)
    pages: list[list[str]] = []
    sections: dict[tuple[int, str, str], int] = {}
    cards: dict[str, int] = {}
    folded: dict[str, str] = {}  # a name as written -> fold(name): 4,700 names, 27,000 folds
    out: list[list[Any]] = []
    for docname in ruling_lines.page_order(env):
        rulings = [r for r in by_page.get(docname, ()) if shown(app, r)]
        if not rulings:
            continue
        page = len(pages)
        pages.append([builder.get_target_uri(docname), page_title(env, docname)])
        for ruling in rulings:
            section = sections.setdefault((page, ruling.section_id, ruling.section_title),
                                          len(sections))
            written = ' '.join(r.text for r in ruling.references)
            iso = ' '.join(r.date or '' for r in ruling.references)  # one per reference
            names: dict[str, None] = {}
            for key, name in ruling.cards:
                for spelled in (key, name):
                    if spelled not in folded:
                        folded[spelled] = fold(spelled)
                    names[folded[spelled]] = None
            entry = [section, ruling.anchor, ruling.text, written, iso,
                     (CHANGED if ruling.changed else 0) | (STRUCK if ruling.struck else 0),
                     [cards.setdefault(name, len(cards)) for name in names if name]]
            if convert is not None and (other := convert(ruling.text)) != ruling.text:
                entry.append(other)
            out.append(entry)
    return {'format': FORMAT, 'labels': labels(), 'pages': pages,
            'sections': [list(key) for key in sections], 'cards': list(cards),
            'rulings': out}


def index_text(index: dict[str, Any]) -> str:
    body = json.dumps(index, ensure_ascii=False, separators=(',', ':'))
    return f'RulingSearch.setIndex({body});\n'


#: where the script takes core/names.py's separator class
SEPARATORS_SLOT = '/* CARD_NAME_SEPARATORS */ null'


def script_text() -> str:
    """The script, with the folding function's separator class in its slot."""
    text = SCRIPT.read_text(encoding='utf-8')
    assert text.count(SEPARATORS_SLOT) == 1, f'{SCRIPT}: no slot for the separators'
    return text.replace(SEPARATORS_SLOT, json.dumps(SEPARATOR_CLASS))


def _write(path: Path, text: str) -> bool:
    """Write *text* unless the file holds it already; whether it wrote."""
    if path.is_file() and path.read_text(encoding='utf-8') == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding='utf-8')
    return True


def _searchable(builder: Builder) -> bool:
    """An HTML build with a search page (not epub, not singlehtml)."""
    return (builder.format == 'html' and not getattr(builder, 'embedded', False)
            and builder.name != 'singlehtml' and bool(getattr(builder, 'search', False)))


def write_index(app: Sphinx) -> list:
    """Write the index when rulings changed, and the script (``html-collect-pages``:
    before the search page is written, which names them with their checksums)."""
    builder = app.builder
    if not _searchable(builder):
        return []
    static = Path(builder.outdir) / '_static'
    _write(static / SCRIPT_NAME, script_text())
    path = static / INDEX
    if not path.is_file() or changes(app.env).rulings:
        _write(path, index_text(build_index(app, builder)))
    return []


def add_scripts(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                doctree: Any) -> None:
    """The search page, and only it, loads the script and the index."""
    if pagename == 'search' and _searchable(app.builder):
        app.add_js_file(SCRIPT_NAME, priority=600, defer='defer')
        app.add_js_file(INDEX, priority=601, defer='defer')


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.rulings.lines')
    app.setup_extension('handbook.render.anchors')  # page titles
    app.connect('html-page-context', add_scripts)
    app.connect('html-collect-pages', write_index)
    # a new index format reads every page again, so that the index is made anew
    return {'version': '1', 'env_version': FORMAT,
            'parallel_read_safe': True, 'parallel_write_safe': True}
