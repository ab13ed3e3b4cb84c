"""Dated ruling references: the date of the official answer after a ruling.

A ruling line ends with the date (YY/M/D, as the official FAQ gives it) of
the answer it reports.  Write it with the ``ruling`` role::

    | 「`手札抹杀`_」……决斗平局。\\ :ruling:`18/12/24`
    | ……\\ :ruling:`17/3/24 <https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=19691>`
    | ……\\ :ruling:`17/3/24 <faq:19691>`

The part in angle brackets is optional: an https URL, or ``faq:<id>``, an
official FAQ id from which ``handbook_faq_url`` builds the URL.  A handbook
that trusts only some sources lists their hosts in ``ruling_hosts``
(``handbook_ruling_hosts``; none by default: any host).  The date alone is valid: many rulings'
links were lost.  Existing handbooks' anonymous date links,
```17/3/24 <https://…fid=19691…>`__``, are recognised as the same thing, and
their FAQ id is read from the URL; so is a date written as plain text in a
ruling's sentence (``……决斗平局。17/3/24``, ``「甲」怪兽17/3/24 和……``): the
date alone (YY/M/D, also in full width, no digit, letter, ``/`` or ``.``
right before it, no digit or ``/`` right after it; in a paragraph or a
line, also in emphasis or struck text, never in a title, a literal, a link,
a role of another kind, or a line shaped as a source header, ``| 21/1/6
邮件：``).  Both settings are the handbook's own:
``ruling_hosts`` and ``faq_url`` in its ``handbook.toml``
(:mod:`handbook.core.settings`), else conf.py's.

Every ruling reference renders as the date as written, a link where it has
a URL, with the CSS class ``ruling`` and the attributes ``ruling_text`` (the
date as written), ``ruling_date`` (ISO date), ``ruling_faq``,
``ruling_url`` (the link, or None) and ``ruling_target`` (what the angle
brackets or the legacy link held).  What is wrong with one is reported at
its exact file and line (:mod:`handbook.core.reports`):

error ``handbook.ruling`` -- the reader sees something broken:

* a malformed role, ``:ruling:`17/3/24 <faq:1">x>``` (a ``<`` or ``>``
  inside the target, text after it): shown as plain text, not as a ruling;
* a malformed date (``17/3``, ``2017-3-24``): write YY/M/D; a date that is
  not in the calendar (``17/2/30``, ``17/13/1``); a date after the day of
  the build (``89/1/1`` is 2089): none of them dates its ruling, which the
  timeline, the feed and the search would otherwise show first;
* a FAQ id that is not a positive integer (the date is shown without link);
* a URL that is not an http(s) address -- ``javascript:``, ``data:``,
  ``file:``, ``//host/…`` without a scheme, a URL with a space or a control
  character, a backslash or a user name (``https://evil.host\\@www.db…``,
  which the browser opens at ``evil.host``; :mod:`handbook.core.url_policy`
  reads every URL as the browser does): it **never becomes a link**, in any build, also where errors
  are not fatal (``make preview``).  The role renders the date as plain
  text; a legacy date link with such a URL is turned into plain text.

warning ``handbook.ruling`` -- a house rule the handbook chose: a URL whose
host is not in its ``ruling_hosts``, where it lists some (it stays a link).

note ``handbook.ruling-fullwidth`` -- a date written with full-width digits
or slashes (``１７/３/２４``): read as the same date; the note gives the
ASCII form to write.

note ``handbook.ruling-plain`` -- plain text written as a date that is not
a calendar date, or is after today (``13/14/15``): it stays text, as it may
be no date at all; the note says to correct it if it dates a ruling.  So
does a date written in another form (``2017/3/24``, ``2017-03-24``,
``17-3-24``) in a line or paragraph that names a card and holds no date:
the note gives the form to write, ``17/3/24`` (a date with its four-digit
year elsewhere, ``本页更新于2021/3/4``, is how a date that dates no ruling is
written).  And an
anonymous link whose text holds a calendar date among other words
(```17/3/24 FAQ <…>`__``): no ruling reference; the note gives the link
with the date alone.  (A date link in brackets, ```（17/3/24） <…>`__``, is
one: shown as written.)  A date link whose date is in another form
(```2018/12/24 <…>`__``), on a line or paragraph that names a card, a date
from 1999 to today: a ruling reference of that date, shown as written; the
note gives the date to write (elsewhere, such a link dates nothing).

The FAQ id of a role's address (``:ruling:`17/3/24 <https://…fid=19691>```)
is read as a date link's (the reference's ``faq``, the badge), but is not in
the ruling's permalink, which was made before it was read
(``ruling_faq_of_url``: :meth:`handbook.rulings.lines.RulingLines.base_id`).

note ``handbook.ruling-https`` -- an ``http://`` URL on a host known to serve
https (one of ``ruling_hosts``, else the official FAQ's and the wiki's,
:func:`https_hosts`): the link stays as written, and the note gives the
exact https URL to write; ``make fix`` rewrites it with :func:`https_url`.

Two-digit years are 20YY, except 90-99, which are 19YY (the OCG began in
1999).
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxRole

from handbook.core import reports, settings
from handbook.core import url_policy
from handbook.core.hostile_input import quoted
from handbook.core.source_lines import BlockLines, locate_text
from handbook.nodes import in_title, is_card_link
from handbook.rulings import days

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sphinx.application import Sphinx

#: a date as the handbook writes it (ASCII digits: \d would take １７ and ١٧ too)
_DATE = re.compile(r'^(\d{1,2})/(\d{1,2})/(\d{1,2})$', re.ASCII)
#: text of an anonymous link that is a date (the legacy form), full-width forms folded:
#: the date alone, or in brackets (``（17/3/24）``, ``[17/3/24]``, ``【17/3/24】``)
_LINK_DATE = re.compile(r'^(?P<open>[(\[【]?)\s*(?P<date>\d{1,2}/\d{1,2}/\d{1,2})\s*'
                        r'(?P<close>[)\]】]?)$', re.ASCII)
_BRACKETS = {'': '', '(': ')', '[': ']', '【': '】'}
#: a date written as plain text in a sentence (not 1.17/3/24, v17/3/24, 17/3/24/1),
#: also in full width (１７/３/２４, 17／3／24: read as the role reads them, with a note)
_PLAIN_DATE = re.compile(r'(?<![0-9０-９A-Za-zＡ-Ｚａ-ｚ/／.．])[0-9０-９]{1,2}[/／][0-9０-９]{1,2}'
                         r'[/／][0-9０-９]{1,2}(?![0-9０-９/／])')
#: a date written in a form no ruling reference takes (2017/3/24, 2017-03-24,
#: 2017.3.24, 17-3-24): it stays text, with a note that gives the date to write
_OTHER_FORM = re.compile(r'(?<![0-9A-Za-z/.\-])(?:(?P<year>(?:19|20)\d{2})(?P<sign>[/.\-])'
                         r'(?P<month>\d{1,2})(?P=sign)(?P<day>\d{1,2})|(?P<yy>\d{2})-'
                         r'(?P<mm>\d{1,2})-(?P<dd>\d{1,2}))(?![0-9/\-]|\.\d)')
#: the inline elements a plain date may sit in, up to its paragraph or line: a
#: date in emphasis or in superscript (``:sup:`17/3/24```, as some handbooks write it)
_PROSE = (nodes.emphasis, nodes.strong, nodes.inline, nodes.superscript)
#: the official FAQ's address, where the handbook names none (``faq:<id>``)
DEFAULT_FAQ_URL = ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action'
                   '?ope=5&fid={id}&request_locale=ja')
#: the forms of the role, for messages
_FORMS = ':ruling:`{d}`, :ruling:`{d} <faq:ID>` or :ruling:`{d} <https://…>`'


def link_date(text: str) -> str | None:
    """The date a link's *text* is, as written (``（１７/３/２４）``: ``１７/３/２４``),
    or None where the text is more than a date (see :data:`_LINK_DATE`; a
    date in another form, ``2018/12/24``: :meth:`RulingReferences.other_form_link`)."""
    text = text.strip()
    m = _LINK_DATE.match(unicodedata.normalize('NFKC', text))
    if m is None or _BRACKETS[m['open']] != m['close']:
        return None
    if m['open']:  # a bracket is one character as written, the date inside it
        text = text[1:-1].strip()
        m = _LINK_DATE.match(unicodedata.normalize('NFKC', text))
        if m is None or m['open']:
            return None
    return text


def parse_date(text: str) -> tuple[datetime.date | None, str | None]:
    """``(date, None)``, or ``(None, what is wrong)``."""
    m = _DATE.match(text)
    if not m:
        return None, (f'malformed ruling date {quoted(text)}; write the date of the '
                      'official answer as YY/M/D, e.g. 17/3/24')
    year, month, day = days.full_year(m[1]), int(m[2]), int(m[3])
    try:
        return datetime.date(year, month, day), None
    except ValueError:
        return None, f'ruling date {text!r} is not a calendar date; check the month and the day'


def ascii_date(text: str) -> str | None:
    """The ASCII form of a date written with full-width digits or slashes
    (``１７/３/２４``, ``17／3／24``), or None."""
    folded = unicodedata.normalize('NFKC', text)
    return folded if folded != text and _DATE.match(folded) else None


def other_form_date(m: re.Match) -> str:
    """A date matched by :data:`_OTHER_FORM` (``2017-03-24``, ``17-3-24``) as a
    ruling reference writes it (``17/3/24``); it may be no calendar date."""
    return (f'{m["year"][2:] if m["year"] else m["yy"]}/{int(m["month"] or m["mm"])}/'
            f'{int(m["day"] or m["dd"])}')


def other_form_written(text: str, today: datetime.date | None = None) -> str | None:
    """The date to write (YY/M/D) for *text*, a calendar date written in
    another form alone (``2018/12/24``, ``18-1-13``), or None; with *today*,
    None too for a date that can date no ruling (before 1999, after today)."""
    m = _OTHER_FORM.fullmatch(text)
    if m is None:
        return None
    written = other_form_date(m)
    date, _problem = parse_date(written)
    # a four-digit year the two digits cannot give (2095) is no date
    if date is None or (m['year'] and date.year != int(m['year'])) or (
            today is not None and not datetime.date(1999, 1, 1) <= date <= today):
        return None
    return written


#: a date in the text of a role, in any form it is read or noted in
_ANY_DATE = re.compile(f'{_PLAIN_DATE.pattern}|{_OTHER_FORM.pattern}')


def role_dates(text: str) -> list[tuple[str, str]] | None:
    """The dates of a role's text that holds dates and what separates them
    alone (``17/3/24、17/12/22``, ``2017-3-24``): ``[(what is before it, the
    date as YY/M/D)]``, each a calendar date; None where it holds anything
    else, or a date that is none."""
    found, at = [], 0
    for m in _ANY_DATE.finditer(text):
        between = text[at:m.start()]
        if between.strip(' \t、，,;；和及与/') or (found and not between) or (
                not found and between.strip()):
            return None
        date = (other_form_written(m.group()) if m['year'] or m['yy']
                else ascii_date(m.group()) or m.group())
        if date is None or parse_date(date)[0] is None:
            return None
        found.append((between, date))
        at = m.end()
    return found if found and not text[at:].strip() else None


def _between_roles(text: str) -> str:
    """*text*, what separated two dates, as it is written between two roles:
    preceded by ``\\ `` where a role may not end before it (和, a letter; 、
    and a space may follow a role), followed by ``\\ `` unless it ends with
    a space."""
    after = '' if text[:1].isspace() or unicodedata.category(text[:1] or ' ')[0] == 'P' \
        else '\\ '
    return f'{after}{text}{"" if text[-1:].isspace() else chr(92) + " "}'


def parse_role_text(text: str) -> tuple[str, str | None] | None:
    """``(date, target or None)`` of the role's text ``date [<target>]``, or
    None when it is malformed (a ``<`` or ``>`` other than one pair of angle
    brackets, not empty, at its end)."""
    if '<' not in text and '>' not in text:
        return text.strip(), None
    start = text.find('<')
    if start < 0 or not text.endswith('>'):
        return None
    target = text[start + 1:-1]
    if '<' in target or '>' in target or not target.strip():
        return None
    return text[:start].strip(), target.strip()


def faq_id_from_url(url: str, faq_url: str) -> str | None:
    """The ``fid`` query parameter of an official FAQ URL, where it is an id
    (:func:`valid_faq`): one on the host of *faq_url* (the handbook's
    ``faq_url``), none of another host's (a round trip: a typo host's
    ``fid=`` was the badge 数据库 #id, as the official FAQ's), nor ``fid=1969l``
    (an editor's round trip: the badge 数据库 #1969l)."""
    if not _on_faq_host(url, faq_url):
        return None
    values = parse_qs(urlsplit(url).query).get('fid')
    return values[0] if values and valid_faq(values[0]) else None


def faq_url_problem(url: str, faq_url: str) -> str | None:
    """What is wrong with *url*, an address of the official FAQ's answers
    (the host and path of *faq_url*, whose query names the id, ``fid={id}``),
    whose id is missing (it opens the FAQ's search, not an answer) or is no
    number (``fid=1969l``); None for any other URL."""
    template = urlsplit(faq_url)
    key = next((name for name, values in parse_qs(template.query).items()
                if '{id}' in values), None)
    parts = urlsplit(url)
    if key is None or parts.path != template.path or not _on_faq_host(url, faq_url):
        return None
    values = parse_qs(parts.query).get(key)
    if not values:
        return f"has no {key}=, so it opens the official FAQ's search, not its answer"
    if not valid_faq(values[0]):
        return (f'has the FAQ id {values[0]!r} ({key}=), which is no number of at most '
                f'{FAQ_DIGITS} digits')
    return None


def _on_faq_host(url: str, faq_url: str) -> bool:
    """Whether *url* is on the host of *faq_url* (the handbook's ``faq_url``),
    as the browser reads both."""
    host = url_policy.host(url)
    return host is not None and host == url_policy.host(faq_url.replace('{id}', '0'))


def unsafe(url: str) -> str | None:
    """Why *url* can never be a ruling's link (the URL policy's absolute
    http(s) URLs only: :mod:`handbook.core.url_policy`), or None."""
    return url_policy.absolute_problem(url)


def https_url(url: str, hosts: Iterable[str]) -> str | None:
    """The https URL to write for *url*, an ``http://`` URL on one of *hosts*
    (a host that serves https), else None.  Nothing but the scheme changes
    (and an explicit port 80 goes): ``http://www.db.yugioh-card.com/x?a=1``
    -> ``https://www.db.yugioh-card.com/x?a=1``.  ``make fix`` calls it for
    both ``:ruling:`17/3/24 <http://…>``` and ```17/3/24 <http://…>`__``."""
    if unsafe(url) is not None:
        return None
    parts = urlsplit(url)
    if parts.scheme.lower() != 'http' or url_policy.host(url) not in {h.lower() for h in hosts}:
        return None
    if parts.port is None:
        return 'https' + url[len('http'):]
    if parts.port != 80:
        return None  # another port: its https address is not known
    netloc = parts.netloc.rsplit(':', 1)[0]
    return urlunsplit(('https', netloc, parts.path, parts.query, parts.fragment))


#: the wiki, which serves https
WIKI_HOST = 'yugioh-wiki.net'


def https_hosts(ruling_hosts: Iterable[str], faq_url: str) -> list[str]:
    """The hosts whose http URLs are noted with their https URL (and that
    ``make fix`` rewrites): the handbook's *ruling_hosts*, else the official
    FAQ's (*faq_url*'s) and the wiki's (both serve https; another host might
    not, and a fix must work)."""
    if ruling_hosts:
        return list(ruling_hosts)
    official = urlsplit(faq_url.replace('{id}', '0')).hostname
    return [host for host in (official, WIKI_HOST) if host]


class RulingRole(SphinxRole):
    """``:ruling:`YY/M/D```, ``:ruling:`YY/M/D <URL>```, ``:ruling:`YY/M/D <faq:ID>```."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        parsed = parse_role_text(self.text)
        if parsed is None:
            # not a ruling: its text, as plain text; RulingReferences reports it
            node = nodes.inline(self.rawtext, self.text)
            node['ruling_malformed'] = True
            return [node], []
        date, target = parsed
        faq = url = None
        if target is not None and target.startswith('faq:'):
            faq = target.removeprefix('faq:').strip()
            if valid_faq(faq):
                # not str.format: another {…} in the template is text, not a KeyError
                url = self.config.handbook_faq_url.replace('{id}', faq)
        elif target:
            url = target
            # the official FAQ's address, as a date link's
            faq = faq_id_from_url(target, self.config.handbook_faq_url)
        # an id that is none is said (check_target), never a badge or a permalink's part
        node = ruling_node(self.rawtext, date, url, faq if faq is None or valid_faq(faq) else None)
        if faq is not None and not valid_faq(faq):
            node['ruling_faq_written'] = faq
        node['ruling_target'] = target
        if faq and url == target:
            # read from the address since a later version: its ruling's permalink
            # stays the one it had (rulings.lines.RulingLines.base_id)
            node['ruling_faq_of_url'] = True
        return [node], []


def in_prose(text: nodes.Text) -> bool:
    """Whether *text* is a sentence's: in a paragraph or a line, inside
    nothing but emphasis or inline text (struck text, a page's own role) that
    is no ruling reference already; not a line with a source header's shape
    (``| 21/1/6 邮件：``: the date is the header's label)."""
    node = text.parent
    while isinstance(node, _PROSE):
        if 'ruling_text' in node or node.get('ruling_malformed'):
            return False
        node = node.parent
    if isinstance(node, nodes.line):
        return not days.header_shaped(node.astext())
    return isinstance(node, nodes.paragraph)


#: the most digits an FAQ id has (the official FAQ's have 5; a 26-digit one
#: became a link and a badge: a hostile-input round trip)
FAQ_DIGITS = 9


def valid_faq(faq: str) -> bool:
    return faq.isascii() and faq.isdigit() and 0 < int(faq) < 10 ** FAQ_DIGITS


def ruling_node(rawtext: str, date: str, url: str | None, faq: str | None) -> nodes.Element:
    """The date, a link only where *url* is safe."""
    if url and unsafe(url) is None:
        node: nodes.Element = nodes.reference(rawtext, date, refuri=url)
    else:
        node = nodes.inline(rawtext, date)
        url = None
    node['classes'].append('ruling')
    node['ruling_text'] = date
    node['ruling_faq'] = faq
    node['ruling_url'] = url
    return node


def _undated_ruling(block: nodes.Element) -> bool:
    """Whether *block* names a card but holds no date that dates a ruling:
    no ruling reference, no date link, no plain date."""
    card = False
    for node in block.findall(nodes.Element):
        if 'ruling_text' in node.attributes or node.get('ruling_malformed') or (
                isinstance(node, nodes.reference) and link_date(node.astext()) is not None):
            return False
        card = card or is_card_link(node) or (  # 「`卡名`_」, resolved after this transform
            isinstance(node, nodes.reference) and 'refname' in node)
    return card and not _PLAIN_DATE.search(block.astext())


class RulingReferences(SphinxTransform):
    """Recognise legacy date links (and neutralise unsafe ones); validate
    every ruling reference."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        self.lines = BlockLines()  # each block's references located as the block was read
        today = datetime.date.today()
        links, worded = [], []
        for node in list(self.document.findall()):
            if isinstance(node, nodes.Text):
                if _OTHER_FORM.search(node) and in_prose(node):
                    self.other_form(node, today)
                if _PLAIN_DATE.search(node) and in_prose(node):
                    self.plain(node, today)
            elif isinstance(node, nodes.reference):
                refuri = node.get('refuri')
                if refuri and 'ruling' not in node['classes']:
                    text = node.astext()
                    date = link_date(text)
                    if date is not None or self.other_form_link(node, text.strip(), today):
                        links.append((node, date or text.strip()))
                    elif (found := _PLAIN_DATE.search(text)) and not in_title(node):
                        worded.append((node, found.group()))
        for node, date in links:  # located once every plain date of their block is a node
            self.legacy(node, node['refuri'], date)
        for node, date in worded:
            self.worded(node, date, today)
        for node in list(self.document.findall(nodes.Element)):
            if node.get('ruling_malformed'):
                self.malformed(node)
            elif 'ruling_text' in node:
                self.check(node, today)

    @staticmethod
    def other_form_link(node: nodes.reference, text: str, today: datetime.date) -> bool:
        """Whether the link *node* is a date link whose date is written in
        another form (``2018/12/24``, ``18-1-13``): a date that can date a
        ruling, alone its text, in a line or paragraph that names a card (a
        link ``2021/3/4`` elsewhere, a news item's or a release's, dates
        nothing).  It dates its ruling; :meth:`check` notes the date to write."""
        if other_form_written(text, today) is None or in_title(node):
            return False
        block = node.parent
        while block is not None and not isinstance(block, (nodes.line, nodes.paragraph)):
            block = block.parent
        return block is not None and any(
            is_card_link(n) or (isinstance(n, nodes.reference) and 'refname' in n)
            for n in block.findall(nodes.Element))

    def plain(self, text: nodes.Text, today: datetime.date) -> None:
        """The plain dates of *text*, each a ruling reference without link.
        Text written as a date that is no calendar date (``13/14/15``) or is
        after today stays text, with a note: it may be no date at all."""
        parts: list[nodes.Node] = []
        at = 0
        for m in _PLAIN_DATE.finditer(text):
            date, _problem = parse_date(ascii_date(m.group()) or m.group())
            if date is None or date > today:
                what, fix = (('not a calendar date', 'the month or the day') if date is None
                             else (f'after today ({date.isoformat()})', 'the year'))
                reports.note(f'{m.group()!r} is written as a date but is {what}: it is left as '
                             f'text; if it dates a ruling, correct {fix}',
                             location=locate_text(text, m.start()), subtype='ruling-plain',
                             config=self.config)
                continue
            if m.start() > at:
                parts.append(nodes.Text(text[at:m.start()]))
            parts.append(ruling_node(m.group(), m.group(), None, None))
            at = m.end()
        if not parts:
            return
        if at < len(text):
            parts.append(nodes.Text(text[at:]))
        text.parent.replace(text, parts)

    def other_form(self, text: nodes.Text, today: datetime.date) -> None:
        """A note for each date of *text* written in a form no ruling
        reference takes (``2017/3/24``, ``17-3-24``), in a line or paragraph
        that names a card and holds no date: its ruling is lost, unsaid,
        where the editor meant the date to date it; the note gives the form
        to write (none where it is no calendar date, or is after today: then
        it may be no date at all)."""
        block = text.parent
        while block is not None and not isinstance(block, (nodes.line, nodes.paragraph)):
            block = block.parent
        if block is None or not _undated_ruling(block) or (
                days.is_faq_page(self.config, self.env.docname) and days.under_a_day(block)):
            return  # 本页更新于2021/3/4: the README's way to write a date that dates nothing;
            # a yearly FAQ page's line: dated by its day
        for m in _OTHER_FORM.finditer(text):
            # the form to write, read as any date is (parse_date: 90-99 are 19YY)
            fix = other_form_written(m.group(), today)
            if fix is None:
                continue
            reports.note(f'{m.group()!r} is a date in a form that dates no ruling: if it dates '
                         f'one, write {fix}', location=locate_text(text, m.start()),
                         subtype='ruling-plain', config=self.config)

    def worded(self, node: nodes.reference, date: str, today: datetime.date) -> None:
        """A note for a link whose text holds a date among other words
        (``17/3/24 FAQ``): no ruling reference, and the fix that makes it
        one (none where the date is no calendar date, or after today, or
        the URL is no safe link: the fix would be an error)."""
        text, url = node.astext().strip(), node['refuri']
        found, _problem = parse_date(ascii_date(date) or date)
        if found is None or found > today or unsafe(url):  # the fix would be an error
            return
        source, line = self.lines(node)
        reports.note(f'the link {quoted(text)} holds the date {date} among other words, so it '
                     f'dates no ruling: write the date alone as its text, `{date} <{url}>`__',
                     location=f'{source}:{line}', subtype='ruling-plain', config=self.config)

    def legacy(self, node: nodes.reference, refuri: str, date: str) -> None:
        """A legacy date link, *date* as its text writes it (:func:`link_date`):
        a ruling reference (plain text when its URL is unsafe)."""
        ruling = ruling_node(node.rawsource, date, refuri,
                             faq_id_from_url(refuri, self.config.handbook_faq_url))
        ruling['ruling_target'] = refuri
        ruling['ruling_legacy'] = True
        if isinstance(ruling, nodes.reference):
            # the same node, kept: only the ruling's attributes are added
            node['classes'].append('ruling')
            for key in ('ruling_text', 'ruling_faq', 'ruling_url', 'ruling_target',
                        'ruling_legacy'):
                node[key] = ruling[key]
            return
        ruling.source, ruling.line = self.lines(node)
        node.replace_self(ruling)

    def malformed(self, node: nodes.Element) -> None:
        node.source, node.line = self.lines(node)
        text = node.astext()
        date = text.split('<', 1)[0].split('>', 1)[0].strip()
        date = date if parse_date(date)[0] else 'YY/M/D'
        reports.error(
            f'malformed ruling reference {quoted(node.rawsource)}: after the date, only one '
            'target in angle brackets may follow, with no < or > inside; it is shown as plain '
            f'text: write {_FORMS.format(d=date)}', location=node, subtype='ruling')

    def check(self, node: nodes.Element, today: datetime.date) -> None:
        if node.line is None:
            node.source, node.line = self.lines(node)
        text = node['ruling_text']
        written = ascii_date(text)
        if written:
            reports.note(f'ruling date {text!r} is written with full-width characters: write '
                         f'{written} (the same date, as the dates are searched and sorted)',
                         location=node, subtype='ruling-fullwidth', config=self.config)
        elif node.get('ruling_legacy') and (written := other_form_written(text)):
            # a date link's date as editors also write it: read, as its editor meant
            reports.note(f'ruling date {text!r} is written in a form no other ruling '
                         f'reference takes: write {written} (the same date, as the dates are '
                         'searched and sorted)', location=node, subtype='ruling-plain',
                         config=self.config)
        date, problem = parse_date(written or text)
        if date is not None and date > today:  # no date, as a day section after today
            problem = (f'ruling date {text!r} ({date.isoformat()}) is after '
                       f'today ({today.isoformat()}); check the year')
        elif date is not None:
            node['ruling_date'] = date.isoformat()
        if problem:
            if date is None and not node.get('ruling_legacy'):
                problem = self.written_otherwise(node, text) or problem
            reports.error(problem, location=node, subtype='ruling')
        self.check_target(node, (written or text) if date else 'YY/M/D')

    @staticmethod
    def written_otherwise(node: nodes.Element, text: str) -> str | None:
        """The message for a role whose text is a date in another form
        (``2017-3-24``) or several dates (``17/3/24、17/12/22``), with the
        roles to write; None for any other text."""
        found = role_dates(text)
        raw = node.rawsource
        if found is None or text not in raw or '`' not in raw:
            return None
        role = raw[:raw.index('`')]  # :ruling:
        first = raw.replace(text, found[0][1], 1)
        fix = first + ''.join(f'{_between_roles(between)}{role}`{date}`'
                              for between, date in found[1:])
        if len(found) == 1:
            return (f'malformed ruling date {quoted(text)}: a ruling reference writes its '
                    f'date as YY/M/D: write {fix}')
        return (f'ruling reference {quoted(raw)} holds {len(found)} dates, which one reference '
                f'cannot: write a reference for each, {fix}')

    def check_target(self, node: nodes.Element, date: str) -> None:
        target = node.get('ruling_target')
        if not target:
            return
        legacy = node.get('ruling_legacy')
        if not legacy and target.startswith('faq:'):
            faq = node.get('ruling_faq_written')
            if faq is not None:
                reports.error(f'FAQ id {quoted(faq)} is not a positive integer of at most '
                              f'{FAQ_DIGITS} digits; the date is '
                              f'shown without a link: write :ruling:`{date} <faq:ID>` with the '
                              "number after fid= in the FAQ's URL, or the date alone, "
                              f':ruling:`{date}`', location=node, subtype='ruling')
            return
        problem = unsafe(target)
        if problem:
            reports.error(self.unsafe_message(target, problem, date, legacy),
                          location=node, subtype='ruling')
            return
        problem = faq_url_problem(target, self.config.handbook_faq_url)
        if problem:  # the link leads to no answer
            reports.error(f'ruling URL {quoted(target, 1000)} {problem}: write the number of '
                          "the answer, as the FAQ's own address gives it, or the date alone, "
                          f':ruling:`{date}`', location=node, subtype='ruling')
            return
        hosts = self.config.handbook_ruling_hosts
        host = url_policy.host(target)  # as the browser reads it, as the badge shows it
        if hosts and host not in {h.lower() for h in hosts}:
            where = settings.origin(self.config, self.env.srcdir, 'handbook_ruling_hosts')
            reports.warning(f'ruling URL host {host!r} is not an allowed source '
                            f'({", ".join(hosts)}); link one of those, or add the host to '
                            f'{where} if it is a trusted source',
                            location=node, subtype='ruling')
            return
        https = https_url(target, https_hosts(self.config.handbook_ruling_hosts,
                                              self.config.handbook_faq_url))
        if https:
            # make fix changes one line at a time: not a link written over two; in
            # a table, where the cell has room for one more character
            up = node.parent
            while up is not None and not isinstance(up, nodes.entry):
                up = up.parent
            fixes = '' if '\n' in node.rawsource else '; make fix rewrites it' + (
                ' where its table column has room' if up is not None else '')
            reports.note(f'ruling URL {quoted(target, 1000)} is http: write {https} (the same '
                         f'page over https{fixes})',
                         location=node, subtype='ruling-https', config=self.config)

    @staticmethod
    def unsafe_message(url: str, problem: str, date: str, legacy: bool) -> str:
        fixed = f'https:{url}' if url.startswith('//') and unsafe(f'https:{url}') is None \
            else None
        if legacy:
            link = f'`{date} <{fixed or "https://…"}>`__'
        else:
            link = f':ruling:`{date} <{fixed or "https://…"}>`'
        if fixed:
            fix = f'write {link}'
        elif problem.startswith('holds'):
            fix = f'remove it from the URL ({link})'
        else:
            fix = f"write the FAQ's https URL, {link}"
        return (f'ruling URL {quoted(url)} {problem}: it is not linked, the date is shown as '
                f'plain text; {fix}, or write the date alone, :ruling:`{date}`')


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.core.settings')  # the handbook's ruling_hosts, faq_url
    app.setup_extension('handbook.core.hostile_input')
    app.add_config_value('handbook_faq_url', DEFAULT_FAQ_URL, 'env', types=frozenset({str}))
    app.add_config_value('handbook_ruling_hosts', [], 'env', types=frozenset({list, tuple}),
                         description='the only hosts ruling URLs may link (none: any)')
    app.add_role('ruling', RulingRole())
    app.setup_extension('handbook.core.page_roles')  # a page's `.. role:: strike` keeps ours
    app.add_transform(RulingReferences)
    # env_version 4: a date link in brackets, a note for one among words; 3: dates
    # written as plain text are ruling references (a kept
    # environment is read again)
    return {'version': '1', 'env_version': 4,
            'parallel_read_safe': True, 'parallel_write_safe': True}
