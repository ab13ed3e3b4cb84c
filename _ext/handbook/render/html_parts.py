"""Parts of a page written to HTML at once.

A generated list (the card index, the timeline) is made of tens of
thousands of nodes that nothing transforms any more once they are made.
Left in the page's doctree, Sphinx's post-transforms, the search indexer and
the garbage collector would walk them again and again, and the translator
would take seconds to write them.  For HTML builders they are written at
once, as text, and the doctree gets one ``raw`` node: :class:`HtmlLinks`
and :func:`escape` write links and text as the HTML translator does.
:class:`Writer` is the builder's translator, writing nodes as a part of a
page (:mod:`handbook.render.ruling_html`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.errors import NoUri
from sphinx.util.osutil import relative_uri
from sphinx.writers.html5 import HTML5Translator

from handbook.store import store

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from sphinx.builders import Builder

    from sphinx.environment import BuildEnvironment


def late_part(document: nodes.document, builder: Builder,
              part: Callable[[], Iterable[str]]) -> nodes.raw:
    """A ``raw`` node for the HTML that *part* gives, piece by piece: where
    the builder writes such parts into the page's file after the page (a
    builder with a ``late_part`` method, as :mod:`handbook.speed`'s), a
    marker it replaces; else the whole HTML."""
    make = getattr(builder, 'late_part', None)
    marker = make(document, part) if make is not None else None
    return marker if marker is not None else nodes.raw('', ''.join(part()), format='html')


class Writer:
    """The builder's translator, writing nodes of *document* as a part of
    page *docname* (``with Writer(…) as write: html = write(node, …)``)."""

    STATE = ('current_docname', 'secnumbers', 'fignumbers', 'imgpath', 'dlpath')

    def __init__(self, env: BuildEnvironment, docname: str, document: nodes.document) -> None:
        self.builder = store(env).builder
        self.docname = docname
        self.document = document
        self.saved: dict[str, Any] = {}

    def __enter__(self) -> Callable[..., str]:
        builder = self.builder
        self.saved = {attr: getattr(builder, attr, None) for attr in self.STATE}
        uri = builder.get_target_uri(self.docname)
        builder.current_docname = self.docname
        builder.secnumbers, builder.fignumbers = {}, {}
        builder.imgpath = relative_uri(uri, '_images')
        builder.dlpath = relative_uri(uri, '_downloads')
        translator = builder.create_translator(self.document, builder)

        def write(*parts: nodes.Node) -> str:
            translator.body = []
            for part in parts:
                part.walkabout(translator)
            return ''.join(translator.body)

        return write

    def __exit__(self, *exc: object) -> None:
        for attr, value in self.saved.items():
            setattr(self.builder, attr, value)


#: the HTML translator's escapes, ``&`` first (the others write an ``&``)
_ESCAPES = sorted(((chr(code), entity) for code, entity in
                   HTML5Translator.special_characters.items()), key=lambda e: e[0] != '&')


def escape(text: str) -> str:
    """*text* in HTML, escaped as the HTML translator escapes it (``@`` too).
    A ``str.replace`` per character: seven times faster than the translator's
    ``str.translate`` on the short texts of the generated lists."""
    for char, entity in _ESCAPES:
        if char in text:
            text = text.replace(char, entity)
    return text


class HtmlLinks:
    """Links from page *docname* to places of other pages, written as the
    HTML translator writes a resolved internal reference."""

    def __init__(self, env: BuildEnvironment, docname: str) -> None:
        self.env = env
        self.builder = store(env).builder
        self.docname = docname
        self.uris: dict[str, str | None] = {}

    def uri(self, docname: str) -> str | None:
        """The page's relative URI (None where it is no page of the build)."""
        if docname not in self.uris:
            self.uris[docname] = self.page_uri(docname) if docname in self.env.all_docs else None
        return self.uris[docname]

    def page_uri(self, docname: str) -> str | None:
        """The relative URI of any page the builder writes (a card page too)."""
        try:
            return self.builder.get_relative_uri(self.docname, docname)
        except NoUri:
            return None

    def link(self, docname: str, anchor: str, content: str) -> str:
        """A link to *anchor* ('' for the top) of page *docname* around
        *content* (HTML); *content* alone where there is no such page."""
        uri = self.uri(docname)
        if uri is None:
            return content
        href = f'{uri}#{anchor}' if anchor else uri
        return f'<a class="reference internal" href="{escape(href)}">{content}</a>'
