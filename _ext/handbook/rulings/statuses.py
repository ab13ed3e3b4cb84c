"""Ruling statuses, replacements and sources: what a ruling says about itself.

Read from each ruling (:mod:`handbook.rulings.lines`) when its page is read,
kept in its record (:class:`~handbook.rulings.lines.Ruling` ``status``,
``replaces``, ``replaced_by``, ``sources``) and shown on its line.

**Statuses.**  ``Ruling.status`` is a tuple of stable ASCII codes, in this
order (:data:`STATUSES`), empty for most rulings:

==============  ==========  ===================================================
code            badge       the ruling ...
==============  ==========  ===================================================
``changed``     裁定变更    says 裁定变更, or another word of the handbook's
                            ``changed_markers``; or some (not all) of its words
                            are struck: it was corrected in place
``open``        调整中      says 调整中 (not as part of 调整中确认): the official
                            answer is still being worked out
``confirmed``   调整中确认  says 调整中确认: an answer once 调整中, confirmed
``superseded``  已过时      it is a ruling of a yearly FAQ page's day that an
                            admonition says is outdated, pointing to the section
                            that supersedes it (:mod:`handbook.rulings.days`)
``overturned``  已推翻      every word of it is struck (``:strike:``; the
                            definition is :func:`handbook.nodes.overturned`)
==============  ==========  ===================================================

The words are read in the ruling's text as the reader sees it *without its
struck text* (struck words no longer hold), in Simplified or Traditional
script (调整中 / 調整中, …: a translated build reads its own text).  So an
overturned ruling has the one status ``overturned``, even where its struck
words said 调整中; a ruling can have several (``changed`` and ``open``).

**The words and the handbook's markers.**  调整中, 调整中确认 and 裁定变更 are
fixed words of the rulings' text (:data:`WORDS`), the same in every handbook.
The handbook's setting ``changed_markers`` (``source/handbook.toml``;
``handbook_changed_markers``) lists the words that *flag a ruling as changed*
(``Ruling.changed``, the timeline's 裁定已变更); this handbook's are 裁定变更 and
调整中确认.  A marker that is a fixed word gives that word's status (调整中确认:
``confirmed``); any other marker, a handbook's own word for a changed ruling
(``规则变更``), gives ``changed``.  A marker is matched as written: a handbook
whose translation writes it otherwise lists both spellings.

**Replacements.**  Within one line (a line-block line or a paragraph, the
block :mod:`handbook.rulings.lines` cuts into rulings), an overturned ruling
is *replaced by* the first later ruling of that line that is not overturned
(``Ruling.replaced_by``: its anchor, or None), and that ruling *replaces*
every overturned ruling it is the replacement of (``Ruling.replaces``: their
anchors, in page order)::

    | 「`神之宣告`_」\\ :strike:`不能发动。`\\ :ruling:`17/3/24` 裁定变更：可以发动。\\ :ruling:`20/1/13`

The second ruling replaces the first.  In the current edition the overturned
rulings are gone, and with them every replacement link.

**Sources.**  ``Ruling.sources`` is ``(kind, detail)`` for each distinct
source of the ruling, in order: first the source header it sits under on a
yearly FAQ page (:mod:`handbook.rulings.days`: ``| 数据库：``, ``| wiki:``,
``| 邮件：``), then each source its references link.  A ruling with neither
has none, and shows no source badge (most rulings' links were lost: a badge
saying so on each would be noise):

==========  ====================  =================================================
kind        badge                 the reference links ...
==========  ====================  =================================================
``faq``     数据库 #19691         the official database: a FAQ id (``faq:19691``,
                                  or ``fid=`` in a URL on the host of
                                  ``handbook_faq_url``), else a page of that host
                                  (数据库, id ``''``)
``wiki``    wiki                  yugioh-wiki.net (:data:`WIKI_HOSTS`)
``mail``    邮件                  (a header only) an answer by mail
``other``   邮件/其他, or the     any other URL; a header's label that names
            header's label        none of the above (``推特``), as its detail
==========  ====================  =================================================

A header ``数据库`` and a link with a FAQ id on the same line are one source,
``数据库 #<id>``.

**HTML** (what other pages showing a ruling -- card pages, search results --
render with the same codes; the classes are stable):

* ``<span class="ruling-badge ruling-badge-<code>">调整中</span>`` per status
  (:func:`badge_html`, labels :func:`label`, translatable);
* ``<a class="ruling-replaces" href="#<anchor>">← 原裁定</a>`` and
  ``<a class="ruling-replaced-by" href="#<anchor>">→ 现裁定</a>``;
* ``<a class="ruling-superseded-by" href="<section>">→ 最新调整</a>`` after
  the badge 已过时;
* ``<span class="ruling-source ruling-source-<kind>">数据库 #19691</span>``
  (:func:`source_label`); on a yearly FAQ page, not the source its header
  names (``| 数据库：``, ``| wiki:``, ``| 邮件：``, and ``| 推特：``, a
  header of kind ``other``): the reader sees it above, and the line is one
  of thousands (with a FAQ id, ``数据库 #19691``, it says more: it is
  shown).  The ruling's ``sources`` keep it (``rulings.json`` lists it);
* no ¶ and no copy button: the readers' tools add them in the browser
  (``publishing/reader_tools.js``, ``button.reader-copy``).
"""

from __future__ import annotations

import functools
import re
from html import escape
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation

from handbook.core import url_policy
from handbook.nodes import is_struck, overturned
from handbook.rulings.dates import WIKI_HOST, faq_id_from_url

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from sphinx.config import Config

_ = get_translation('handbook')

#: every status, in the order ``Ruling.status`` lists them
STATUSES = ('changed', 'open', 'confirmed', 'superseded', 'overturned')
#: the fixed words of each status read from the text, Simplified and Traditional
WORDS = {
    'changed': ('裁定变更', '裁定變更'),
    'open': ('调整中', '調整中'),
    'confirmed': ('调整中确认', '調整中確認'),
}
#: 调整中 that is not the start of 调整中确认
_OPEN = re.compile(r'调整中(?!确认)|調整中(?!確認)')
#: hosts whose pages are the wiki's
WIKI_HOSTS = frozenset({WIKI_HOST})
#: every source kind, in the order of the table above
SOURCES = ('faq', 'wiki', 'mail', 'other')


def label(code: str) -> str:
    """The badge's text of a status (translated)."""
    labels = {'changed': _('裁定变更'), 'open': _('调整中'), 'confirmed': _('调整中确认'),
              'superseded': _('已过时'), 'overturned': _('已推翻')}
    return str(labels[code])


def flag(ruling: Any) -> str | None:
    """The one word the listings (the timeline, 最近更新 and its feed) put
    before a ruling (a :class:`~handbook.rulings.lines.Ruling`): 已推翻 for
    an overturned ruling, else 已过时 for a superseded one, else 裁定已变更 for
    one flagged as changed (struck words, or a word of ``changed_markers``:
    调整中确认 too); None for the others (translated).  A listing shows the
    ruling's text alone, so an overturned or outdated ruling must say so there."""
    for code in ('overturned', 'superseded'):
        if code in ruling.status:
            return label(code)
    return str(_('裁定已变更')) if ruling.changed else None


def source_label(kind: str, detail: str) -> str:
    """The source badge's text: 数据库 #19691, 数据库, wiki, 邮件, 邮件/其他 or a
    header's own label (translated)."""
    if kind == 'faq':
        database = str(_('数据库'))
        return f'{database} #{detail}' if detail else database
    if kind == 'wiki':
        return str(_('wiki'))
    if kind == 'mail':
        return str(_('邮件'))
    return detail or str(_('邮件/其他'))


def unstruck_text(line: nodes.Element) -> tuple[str, bool]:
    """The ruling's text without its struck text and its dates; and whether
    it has struck text."""
    parts: list[str] = []
    struck = False
    stack: list[nodes.Node] = [line]
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Text):
            parts.append(node.astext())
        elif is_struck(node):
            struck = True
        elif 'ruling_text' not in node.attributes:
            stack.extend(reversed(node.children))
    return ''.join(parts), struck


def is_overturned(line: nodes.Element) -> bool:
    """Every word of the ruling is struck (the editions' definition)."""
    return 'ruling-struck' in line['classes'] or overturned(line)


def read_status(line: nodes.Element, markers: Iterable[str],
                superseded: bool = False) -> tuple[str, ...]:
    """The status codes of the ruling *line* (see the module docstring);
    *superseded*: its day is outdated."""
    text, struck = unstruck_text(line)
    if struck and is_overturned(line):
        return ('overturned',)
    found = {'superseded'} if superseded else set()
    if any(word in text for word in WORDS['changed']):
        found.add('changed')
    if _OPEN.search(text):
        found.add('open')
    if any(word in text for word in WORDS['confirmed']):
        found.add('confirmed')
    fixed = {word for code in ('open', 'confirmed') for word in WORDS[code]}
    if any(marker and marker not in fixed and marker in text for marker in markers):
        found.add('changed')
    if struck:
        found.add('changed')  # some words struck, not all: corrected in place
    return tuple(code for code in STATUSES if code in found)


def read_sources(references: Iterable, config: Config,
                 header: tuple[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """``(kind, detail)`` of each distinct source of a ruling: its *header*'s
    on a yearly FAQ page, then those its references link."""
    official = _host_of(config.handbook_faq_url.replace('{id}', '0'))
    found: dict[tuple[str, str], None] = {}
    if header is not None:
        found[header] = None
    for reference in references:
        if not reference.url:
            continue
        host = _host_of(reference.url)
        if reference.faq:
            source = ('faq', reference.faq)
        elif host == official:
            source = ('faq', faq_id_from_url(reference.url, config.handbook_faq_url) or '')
        elif host in WIKI_HOSTS:
            source = ('wiki', '')
        else:
            source = ('other', '')
        if source[0] == 'faq' and ('faq', '') in found and header == ('faq', ''):
            # the header 数据库 and the FAQ its line links: one source
            found = {(source if s == ('faq', '') else s): None for s in found}
        found.setdefault(source, None)
    return tuple(found)


@functools.lru_cache(maxsize=4096)
def _host_of(url: str) -> str | None:
    """The host the browser visits for *url* (:mod:`handbook.core.url_policy`;
    the same few hosts for every ruling of a page)."""
    return url_policy.host(url)


def replacements(lines: Sequence[nodes.Element], overturned: Sequence[bool]
                 ) -> tuple[dict[int, int], dict[int, list[int]]]:
    """``(replaced_by, replaces)`` of a page's ruling lines, by their index:
    within one block, each overturned ruling is replaced by the first later
    ruling that is not (see the module docstring)."""
    replaced_by: dict[int, int] = {}
    replaces: dict[int, list[int]] = {}
    waiting: list[int] = []  # overturned rulings of the current block, not yet replaced
    block = None
    for i, line in enumerate(lines):
        if line.parent is not block:
            block, waiting = line.parent, []
        if overturned[i]:
            waiting.append(i)
        elif waiting:
            replaces[i] = waiting
            replaced_by.update((j, i) for j in waiting)
            waiting = []
    return replaced_by, replaces


# -- HTML ------------------------------------------------------------------------------


def badge_html(code: str) -> str:
    return (f'<span class="ruling-badge ruling-badge-{code}">'
            f'{escape(label(code))}</span>')


def source_html(kind: str, faq: str) -> str:
    return (f'<span class="ruling-source ruling-source-{kind}">'
            f'{escape(source_label(kind, faq))}</span>')


def replacement_html(anchor: str, forward: bool) -> str:
    css, text = ('ruling-replaced-by', _('→ 现裁定')) if forward else \
        ('ruling-replaces', _('← 原裁定'))
    return f'<a class="{css}" href="#{escape(anchor)}">{escape(str(text))}</a>'


def superseded_html(href: str) -> str:
    text = str(_('→ 最新调整'))
    return f'<a class="ruling-superseded-by" href="{escape(href)}">{escape(text)}</a>'


def marks_html(status: Iterable[str], replaces: Iterable[str], replaced_by: str | None,
               sources: Iterable[tuple[str, str]], superseded_href: str | None = None,
               header: tuple[str, str] | None = None) -> str:
    """The badges and links shown after a ruling's dates, in this order:
    statuses (after 已过时, the link to the section that supersedes it),
    replacement links, sources -- but the source its yearly FAQ page's
    *header* names, where the ruling's badge would say nothing else (数据库
    under 数据库：; 数据库 #19691 is shown)."""
    parts = []
    for code in status:
        parts.append(badge_html(code))
        if code == 'superseded' and superseded_href:
            parts.append(superseded_html(superseded_href))
    parts += [replacement_html(anchor, forward=False) for anchor in replaces]
    if replaced_by:
        parts.append(replacement_html(replaced_by, forward=True))
    parts += [source_html(kind, faq) for kind, faq in sources if (kind, faq) != header]
    return ''.join(parts)
