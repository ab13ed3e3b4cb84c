"""Link previews: the title and description shown where a page is linked.

A link pasted in a chat app, or found by a search engine, is shown with the
page's OpenGraph tags (sphinxext-opengraph: ``og:title`` is the page title,
``og:url`` its address) and the ``description`` meta tag.  This extension
writes the description: the first sentences of the page's own text.

* Text is taken from paragraphs and line-block lines, in page order, across
  sections.  Titles (the page's and its sections'), admonitions, comments,
  tables of contents, code, footnotes, ruling dates (class ``ruling``) and
  struck, overturned text (class ``strike``) are left out: a preview reads
  as prose, and says only what is current.
* Chinese has no spaces between words: a line break inside a paragraph
  between Chinese characters disappears, and consecutive lines join without a
  space after Chinese punctuation (a space elsewhere).  Nothing else is
  changed: no punctuation is added.
* Whole sentences (ending in 。！？!? or a full stop and a space) are taken
  while they fit in ``handbook_description_width`` columns; a Chinese
  character counts two columns, as wide as it is drawn, so the limit means
  the same length on screen for any language.  A first sentence that is
  longer is cut at the limit and ends in ``…``.
* A page that has no text of its own, only tables of contents (a
  handbook's index), is described by the titles they list first, 、 between
  them; a yearly FAQ page's source headers (``邮件：``) are no text.
* A page that sets its own description keeps it: a field
  ``:og:description: …`` at the top of the page.

Configuration (``conf.py``)::

    handbook_description_width = 160   # about 80 Chinese characters

The tags are written for every page that has a text (not for the search and
index pages); ``og:description`` and ``description`` say the same.  A page
written without a doctree (a card page, :mod:`handbook.listings.card_pages`)
gets the same tags from :func:`preview_tags`.  ``og:url``
is the page's absolute address under ``html_baseurl``
(:mod:`handbook.publishing.site_urls`); a build without one writes none.
"""

from __future__ import annotations

import contextlib
import html
import io
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes

from handbook.rulings.days import SOURCE_HEADER
from handbook.rulings.sentences import LEFT_OUT, close_up

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sphinx.application import Sphinx

#: elements whose text is not part of the page's prose
SKIPPED = (nodes.title, nodes.subtitle, nodes.rubric, nodes.caption, nodes.Admonition,
           nodes.Invisible, nodes.system_message, nodes.problematic, nodes.raw,
           nodes.literal_block, nodes.doctest_block, nodes.table, nodes.image,
           nodes.footnote, nodes.citation, nodes.footnote_reference,
           nodes.citation_reference, nodes.topic, nodes.sidebar, nodes.docinfo,
           nodes.field_list, addnodes.toctree, addnodes.only)
#: classes of elements that are not prose: a ruling's date, struck (overturned)
#: text, a permalink's sign, a table of contents (at write time a toctree is a
#: list of links in a ``toctree-wrapper``), where a listing's ruling is and its
#: permalink (``页面 › 小节 · 固定链接``)
SKIPPED_CLASSES = frozenset({'ruling', 'strike', 'headerlink', 'toctree-wrapper',
                             'ruling-entry-source', 'ruling-entry-permalink', 'ruling-entry-also'})
#: the end of a sentence: Chinese and Latin punctuation
_SENTENCE_END = re.compile(r'[。！？!?](?:[」』”’）)]*)|\.(?=\s)')
_SPACE = re.compile(r'\s+')


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in 'WF'


def width(text: str) -> int:
    """Columns the text takes on screen: wide (CJK) characters count 2."""
    return sum(2 if _wide(c) else 1 for c in text)


def _skipped(node: nodes.Node) -> bool:
    return isinstance(node, SKIPPED) or (isinstance(node, nodes.Element) and (
        not SKIPPED_CLASSES.isdisjoint(node['classes']) or node.get(SOURCE_HEADER)))


def _text(node: nodes.Element) -> str:
    """The element's text, without skipped inline parts, spaces normalised."""
    def parts(element: nodes.Element) -> Iterator[str]:
        for child in element.children:
            if isinstance(child, nodes.Text):
                yield child.astext()  # without docutils' marks of escaped characters
            elif not _skipped(child):
                yield from parts(child)
            else:
                yield LEFT_OUT

    # what was left out takes the spaces beside it between Chinese words with it
    # (怪兽\ :ruling:`17/3/24` 和: 怪兽和), else it is nothing
    text = close_up(''.join(parts(node)))

    def space(match: re.Match) -> str:
        before, after = text[match.start() - 1:match.start()], text[match.end():match.end() + 1]
        if '\n' in match.group() and (before and _wide(before) or after and _wide(after)):
            return ''  # a line break inside Chinese text
        return ' '

    return _SPACE.sub(space, text).strip()


def blocks(node: nodes.Element) -> Iterator[str]:
    """The texts of the paragraphs and lines under the node, in order."""
    for child in node.children:
        if not isinstance(child, nodes.Element) or _skipped(child):
            continue
        if isinstance(child, nodes.TextElement) and not isinstance(child, nodes.Inline):
            if text := _text(child):
                yield text
        else:
            yield from blocks(child)


def sentences(text: str) -> list[str]:
    found, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        found.append(text[start:match.end()].strip())
        start = match.end()
    found.append(text[start:].strip())
    return [s for s in found if s]


def describe(doctree: nodes.Node, limit: int) -> str:
    """The first whole sentences of the page that fit in ``limit`` columns.

    A paragraph or line ends a sentence even without punctuation.
    """
    description, texts = '', 0
    for block in blocks(doctree):
        texts += 1
        for sentence in sentences(block):
            joined = _join(description, sentence)
            if width(joined) <= limit:
                description = joined
                continue
            if not description:  # one long sentence: cut it
                cut = ''
                for char in sentence:
                    if width(cut + char) > limit - 1:
                        break
                    cut += char
                description = cut.rstrip() + '…'
            return description
    return description if texts else contents(doctree, limit)  # no text of its own: what it holds


def contents(doctree: nodes.Node, limit: int) -> str:
    """The titles its tables of contents list first, 、 between them, as
    many as fit in ``limit`` columns: the description of a page that is
    only a table of contents (a handbook's index).  Else ''."""
    titles = []
    for wrapper in doctree.findall(nodes.compound):
        if 'toctree-wrapper' not in wrapper['classes']:
            continue
        for listing in wrapper.findall(nodes.bullet_list):
            if isinstance(listing.parent, nodes.list_item):
                continue  # the entries under an entry
            for item in listing.children:
                if isinstance(item, nodes.list_item) and item.children:
                    titles.append(_text(item[0]))
    described = ''
    for title in filter(None, titles):
        joined = f'{described}、{title}' if described else title
        if width(joined) > limit:
            break
        described = joined
    return described


def _join(text: str, sentence: str) -> str:
    """Chinese punctuation ends a sentence without a space; anything else gets one."""
    if not text:
        return sentence
    last = text[-1]
    if _wide(last) and unicodedata.category(last).startswith('P'):
        return text + sentence
    return f'{text} {sentence}'


def add_description(app: Sphinx, pagename: str, templatename: str,
                    context: dict[str, Any], doctree: nodes.document | None) -> None:
    if doctree is None or app.builder.name == 'epub':
        return
    meta = context.get('meta') or {}
    # the page's own (.. meta:: :description:), written by docutils: it alone,
    # and its link previews' (a hostile-input round trip: two descriptions)
    own = _OWN_DESCRIPTION.search(context.get('metatags', ''))
    if own is not None:
        if 'og:description' not in meta:
            context['meta'] = {**meta, 'og:description': own[1]}
        return
    text = meta.get('og:description') or describe(doctree, app.config.handbook_description_width)
    if not text:
        return
    # sphinxext-opengraph takes og:* fields of the page as they are; the page's
    # metadata itself is left alone (a copy goes into the template context)
    context['meta'] = {**meta, 'og:description': html.escape(text)}
    context['metatags'] = (context.get('metatags', '')
                           + f'<meta name="description" content="{html.escape(text)}" />\n')


#: a description meta tag docutils wrote for the page (its content escaped)
_OWN_DESCRIPTION = re.compile(r'<meta\b(?=[^>]*\sname="description")[^>]*\scontent="([^"]*)"')


def cut(text: str, limit: int) -> str:
    """*text*, spaces normalised, cut to fit in *limit* columns (ending in …:
    the longest start of it that fits in ``limit - 1``)."""
    text = _SPACE.sub(' ', text).strip()
    used, fits = 0, 0  # columns so far; characters that fit in limit - 1
    for i, char in enumerate(text):
        used += 2 if _wide(char) else 1
        if used <= limit - 1:
            fits = i + 1
        elif used > limit:
            return text[:fits].rstrip() + '…'
    return text


def preview_tags(app: Sphinx, pagename: str, title: str, description: str) -> str:
    """The tags of a page written without a doctree (a card page), as
    sphinxext-opengraph and :func:`add_description` write them for a page with
    one: ``description``, ``og:title``, ``og:type``, ``og:url`` (with the site's
    address only), ``og:site_name``, ``og:description`` and the configured
    extra tags.  *title* and *description* are text: escaped here."""
    config = app.config
    # each value as HTML: ogp_site_name is HTML to sphinxext-opengraph (which
    # escapes only its quotes), the project's name text
    tags = [('property', 'og:title', html.escape(title)),
            ('property', 'og:type', html.escape(config.ogp_type))]
    if config.html_baseurl:
        tags.append(('property', 'og:url',
                     html.escape(config.html_baseurl + app.builder.get_target_uri(pagename))))
    if config.ogp_site_name is not False:
        tags.append(('property', 'og:site_name',
                     config.ogp_site_name or html.escape(config.project)))
    tags.append(('property', 'og:description', html.escape(description)))
    out = [f'<meta name="description" content="{html.escape(description)}" />']
    out += [f'<meta {kind}="{name}" content="{value.replace(chr(34), "&quot;")}" />'
            for kind, name, value in tags]
    return '\n'.join([*out, *config.ogp_custom_meta_tags]) + '\n'


#: sphinxext-opengraph's og:url tag, relative where ogp_site_url is empty
_OG_URL = re.compile(r'<meta property="og:url" content="[^"]*" />\n?')


def drop_relative_url(app: Sphinx, pagename: str, templatename: str,
                      context: dict[str, Any], doctree: nodes.document | None) -> None:
    """No ``og:url`` without the site's address: sphinxext-opengraph would
    write the page's relative path, which a preview cannot open."""
    if not app.config.html_baseurl and 'og:url' in context.get('metatags', ''):
        context['metatags'] = _OG_URL.sub('', context['metatags'])


def setup(app: Sphinx) -> dict[str, Any]:
    # sphinxext-opengraph prints a notice on import when matplotlib is missing;
    # it needs it only for generated preview images, which the handbook does not use
    with contextlib.redirect_stdout(io.StringIO()):
        import sphinxext.opengraph  # noqa: F401
    app.setup_extension('sphinxext.opengraph')
    app.add_config_value('handbook_description_width', 160, 'html', types=frozenset({int}))
    # before sphinxext-opengraph (500), which reads the description from the meta fields
    app.connect('html-page-context', add_description, priority=400)
    app.connect('html-page-context', drop_relative_url, priority=550)  # after it
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
