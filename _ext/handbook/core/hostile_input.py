"""Hostile or broken input: a located error, never a crash, never a script link.

Safeguards that hold for every page of the handbook, whatever wrote it:

error ``handbook.encoding`` -- a page file (a source suffix, ``.rst``, in
the source folder) that is not text in ``source_encoding`` (UTF-8): Sphinx
9.0 stops with a traceback ("Encoding error!") when it reads one.  At
``config-inited`` every page file is decoded once; one that fails is
reported at its file and the line of the first bad byte, and excluded from
the build (``exclude_patterns``), so the other pages build.  Save it as
UTF-8, or move it out of the source folder if it is not a page.

error ``handbook.control-character`` -- a control character in a page
(U+0000-U+001F but tab, line breaks, vertical tab and form feed;
U+007F-U+009F): readers see nothing or a box, and EPUB readers reject the
page.  It is reported at its line and left out of the page
(``source-read``), so a control character never reaches a URL either.

error ``handbook.invisible-character`` -- a format character (Unicode's
category Cf): a bidirectional control (``U+202E`` shows what follows
reversed), a zero-width space or joiner, a byte-order mark inside a page, a
soft hyphen, a tag character: readers do not see it, but it changes how the
text reads, what the search finds and the ids made from a title.  Reported
at its line and left out of the page.

error ``handbook.nesting`` -- a line indented :data:`DEEPEST` columns or
more: docutils reads each indentation as a block inside the one before, and
stops with a recursion error (a traceback, no page built) at about 160
levels; a thousand nested list items did (a hostile-input round trip).  Its
first such line is reported; those lines are read at that indentation.

note ``handbook.line-separator`` -- ``U+2028`` or ``U+2029``: Python's line
splitting, and so docutils', takes it for a line break, which editors do
not, so every line number reported after it would be one off.  It is read
as a space, and reported at its line as editors count it.

error ``handbook.link`` -- a link or an image whose address the URL policy
refuses (:mod:`handbook.core.url_policy`: only http(s), or a relative path
inside the site; no backslash, no user name, no space or control
character, read as the browser reads it): a link is turned into its text,
an image is left out, in every build, also where errors are not fatal
(``make preview``).  This covers the links docutils makes itself: ```文本
<javascript:…>`__``, ```文本 <//evil.host/>`__``, ``文本_`` with ``.. _文本:
javascript:…``, an image's ``:target:``, an image or ``:download:`` given an
address.  Dates of rulings get their own message first
(:mod:`handbook.rulings.dates`).

Text is never HTML: docutils and Sphinx escape every title, card name and
role text (``:strike:`<script>```), so there is nothing to do for it here.
What passes HTML or files through by design (``raw``, ``include`` of a file
outside the source folder, ``meta http-equiv``) is off:
:mod:`handbook.core.safe_reading`, loaded with this module.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.project import EXCLUDE_PATHS
from sphinx.transforms import SphinxTransform
from sphinx.util.matching import get_matching_files

from handbook.core import reports, url_policy
from handbook.core.source_lines import BlockLines

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

#: control characters that are not whitespace docutils knows (tab, line breaks,
#: vertical tab, form feed): C0, DEL, C1
_CONTROL = re.compile('[\x00-\x08\x0e-\x1f\x7f-\x9f]')
#: invisible characters that change how text reads: Unicode's format characters
#: (category Cf, as the registry refuses them: cards.registry), written out so
#: that no page waits for them to be gathered (test_safe_reading checks them
#: against the running Python's Unicode): bidirectional controls (U+202E
#: reverses what follows), zero-width spaces and joiners, a byte-order mark
#: inside the text, a soft hyphen, tag characters (U+E0041)
_INVISIBLE = re.compile(
    '[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f'
    '\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd'
    '\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001'
    '\U000e0020-\U000e007f]')
#: characters Python's (and so docutils') line splitting takes for line
#: breaks, which editors do not: every later line number would be off by one
_LINE_SEPARATOR = re.compile('[\u2028\u2029]')
#: the indentation (columns) past which a line is read at it: far beyond any
#: page's, well within the nesting docutils can read (about 160 levels)
DEEPEST = 100
#: a line indented that deep (tabs count as up to 8 columns: their line is measured)
_DEEP = re.compile(r'^(?: {%d}|(?=[ \t]*\t)[ \t]{%d,})' % (DEEPEST, DEEPEST // 8), re.M)
#: everything the source-read check looks for
_SUSPECT = re.compile(f'{_CONTROL.pattern}|{_INVISIBLE.pattern}|{_LINE_SEPARATOR.pattern}')


def undecodable(path: Path, encoding: str) -> tuple[int, str] | None:
    """``(line, what)`` of the first byte of *path* that is not *encoding*, or None."""
    data = path.read_bytes()
    try:
        codecs.decode(data, encoding)
    except UnicodeDecodeError as err:
        line = data.count(b'\n', 0, err.start) + 1
        return line, f'byte 0x{data[err.start]:02x}'
    return None


def exclude_undecodable(app: Sphinx, config: Config) -> None:
    """``config-inited``: report the page files that cannot be read, and leave them out."""
    suffixes = config.source_suffix  # a dict by now; a str or list in an old conf.py
    suffixes = (suffixes,) if isinstance(suffixes, str) else tuple(suffixes)
    srcdir = Path(app.srcdir)
    excluded = [*config.exclude_patterns, *config.templates_path, *EXCLUDE_PATHS]
    bad = []
    # the files Sphinx's Project.discover looks at (without its warnings twice)
    for name in sorted(get_matching_files(srcdir, config.include_patterns, excluded)):
        if not name.endswith(suffixes):
            continue
        path = srcdir / name
        try:
            found = undecodable(path, config.source_encoding)
        except OSError:
            continue  # Sphinx reports it: "Ignored unreadable document"
        if found is None:
            continue
        line, what = found
        encoding = 'UTF-8' if codecs.lookup(config.source_encoding).name.startswith('utf-8') \
            else config.source_encoding
        reports.error(f'the page is not {encoding} text ({what}), so it is not built: save '
                      f'it as {encoding}, or move it out of the source folder if it is not a '
                      'page', location=f'{path}:{line}', subtype='encoding')
        bad.append(Path(name).as_posix())
    if bad:
        # a new list: never mutate the (shared) default value
        config.exclude_patterns = [*config.exclude_patterns, *bad]
        # for the reports of what they would have defined (sections.labels)
        config.handbook_not_built = bad


def quoted(text: str, limit: int = 100) -> str:
    """*text* quoted for a message, cut after *limit* characters (hostile
    input may be a megabyte long)."""
    return repr(text if len(text) <= limit else f'{text[:limit]}…')


def unsafe_link(url: str, page: str | None = None) -> str | None:
    """Why *url* must not be a link of the page *page*, or None
    (:func:`handbook.core.url_policy.problem`)."""
    return url_policy.problem(url, page=page)


def strip_control_characters(app: Sphinx, docname: str, source: list[str]) -> None:
    """``source-read``: report each control or invisible character of the
    page at its line (lines counted as editors count them: at line feeds),
    and leave it out of the page; a line separator is read as a space."""
    _shallower(app, docname, source)
    text = source[0]
    if _SUSPECT.search(text) is None:
        return
    path = app.env.doc2path(docname)
    for number, line in enumerate(text.split('\n'), start=1):
        if _SUSPECT.search(line) is None:
            continue
        found = sorted({f'U+{ord(c):04X}' for c in _CONTROL.findall(line)})
        if found:
            them = 'them' if len(found) > 1 else 'it'
            reports.error(f'the line holds the control character{"s" * (len(found) > 1)} '
                          f'{", ".join(found)}, which readers see as nothing or as a box and '
                          f'which EPUB readers reject: delete {them} (the page is built '
                          f'without {them})', location=f'{path}:{number}',
                          subtype='control-character')
        invisible = sorted(set(_INVISIBLE.findall(line)))
        if invisible:
            names = ', '.join(f'U+{ord(c):04X} ({unicodedata.name(c, "?")})' for c in invisible)
            them = 'them' if len(invisible) > 1 else 'it'
            reports.error(f'the line holds the invisible character{"s" * (len(invisible) > 1)} '
                          f'{names}, which readers do not see but which change{"s" * (len(invisible) == 1)} '
                          f'how the text reads and the ids made from it: delete {them} (the '
                          f'page is built without {them})', location=f'{path}:{number}',
                          subtype='invisible-character')
        separators = sorted({f'U+{ord(c):04X}' for c in _LINE_SEPARATOR.findall(line)})
        if separators:
            reports.note(f'the line holds {", ".join(separators)} (a line or paragraph '
                         'separator), which editors do not show as a line break: it is read as '
                         'a space; write a space, or break the line', location=f'{path}:{number}',
                         subtype='line-separator', config=app.config)
    text = _CONTROL.sub('', text)
    text = _INVISIBLE.sub('', text)
    source[0] = _LINE_SEPARATOR.sub(' ', text)


def _shallower(app: Sphinx, docname: str, source: list[str]) -> None:
    """The lines of the page indented :data:`DEEPEST` columns or more, read
    at that indentation; the first reported."""
    text = source[0]
    if _DEEP.search(text) is None:
        return
    lines = text.split('\n')
    first = None
    for i, line in enumerate(lines):
        body = line.lstrip(' \t')
        columns = len(line[:len(line) - len(body)].expandtabs(8))
        if columns >= DEEPEST and body:
            first = (i + 1, columns) if first is None else first
            lines[i] = ' ' * DEEPEST + body
    if first is None:
        return
    reports.error(f'the line is indented {first[1]} columns: docutils reads each indentation '
                  'as a block inside the one before and cannot read them nested this deep; '
                  f'indent it less (the page is built with its lines indented {DEEPEST} '
                  'columns or more read at that indentation)',
                  location=f'{app.env.doc2path(docname)}:{first[0]}', subtype='nesting')
    source[0] = '\n'.join(lines)


class UnsafeLinks(SphinxTransform):
    """Turn links to addresses the URL policy refuses into their text, leave
    out such images; report each."""

    # after docutils' ExternalTargets (640) has given named references their URL
    default_priority = 700

    def apply(self, **kwargs: Any) -> None:
        lines = BlockLines()  # each block's links located as the block was read
        page = self.env.docname
        for node in list(self.document.findall(nodes.reference)):
            url = node.get('refuri')
            if not url:
                continue
            problem = unsafe_link(url, page)
            if problem is None:
                continue
            text = nodes.inline(node.rawsource, '', *node.children)
            text.source, text.line = lines(node)
            node.replace_self(text)
            reports.error(f'link {quoted(node.astext())} goes to {quoted(url)}, which '
                          f'{problem}: it is shown as plain text; write the https:// address '
                          'of the page it should open, or remove the link',
                          location=text, subtype='link')
        for node in list(self.document.findall(addnodes.download_reference)):
            problem = _address_problem(node.get('reftarget', ''))
            if problem is not None:
                text = nodes.inline(node.rawsource, node.astext())
                text.source, text.line = lines(node)
                node.replace_self(text)
                reports.error(f'download {quoted(node.astext())} goes to '
                              f'{quoted(node["reftarget"])}, which {problem}: it is shown as '
                              'plain text; give a file of the source folder or an https:// '
                              'address', location=text, subtype='link')
        for node in list(self.document.findall(nodes.image)):
            uri = node.get('uri', '')
            problem = _address_problem(uri)
            if problem is not None:
                reports.error(f'image {quoted(uri)} {problem}: it is left out; give a file of '
                              'the source folder or an https:// address',
                              location=node, subtype='link')
                node.parent.remove(node)


def _address_problem(target: str) -> str | None:
    """Why an image's or a download's *target* may not be published, or
    None: a file path is Sphinx's to copy (:mod:`handbook.core.safe_reading`
    checks that it is in the source folder), an address must be http(s)."""
    if url_policy.is_path(target):
        return None
    return url_policy.absolute_problem(target)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.core.safe_reading')
    app.setup_extension('handbook.core.unknown_markup')  # a misspelt role's or directive's fix
    # after Sphinx has made source_suffix a dict (800)
    app.add_config_value('handbook_not_built', [], '', types=frozenset({list}),
                         description='set by the build: the page files not built, as they '
                                     'cannot be read')
    app.connect('config-inited', exclude_undecodable, priority=900)
    app.connect('source-read', strip_control_characters)
    app.add_transform(UnsafeLinks)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
