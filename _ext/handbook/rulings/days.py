"""Yearly FAQ pages: rulings dated by the day section they sit in.

Existing handbooks keep the official answers of each year on a page of their
own, one section per month and one per day, the rulings of a day in line
blocks under source headers, most lines without a date of their own::

    ====
    2021
    ====

    .. role:: strike

    21/01
    =====

    1/5
    ---

    | 邮件：
    | 「`旋风`_」……。
    | :strike:`「旋风」……调整中。`

    | 数据库：
    | ……。\\ `21/1/6 <https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=…>`__

    2/9
    ---

    .. attention:: 这些调整已经过时，最新调整见\\ :ref:`连锁块`\\ 中的内容。

**The shape.**  A *day section* is a section titled ``M/D`` (or
``M月D日``, ``M月D号``, or a date with its year: ``21/1/5``, ``2021-01-05``,
``2021年1月5日``) whose parent section is a *month section*, titled
``YY/MM`` (``YYYY/MM``, ``MM``, ``M月``, ``M月份``, or one of them with its
year or 月 and more after it: ``21/01（共4条）``, ``2021年1月裁定``); the year is
the day's own, else the month's, else the page title's (``2021``, ``2021年``,
``OCG FAQ 2021``: a year anywhere in it; ``99`` is 1999).  A section titled
with a date and its year alone is a day wherever it is; a section ``1.2``
under a section ``1``, on a page titled otherwise than with a year alone, is
a chapter's numbered section, no day (``01`` › ``1.5`` is a day).  A
page titled with a year alone may also have its days right under its title,
with no month sections (a year of a few rulings); a section titled as a
day too, which holds no day, is that day (``12/5`` under ``2012``).  A page that has day
sections is a yearly FAQ page where the handbook's ``faq_pages`` allow it
(:data:`DEFAULTS`; its glob patterns of page names, every page by default).
The days of a month section need not be of that month (``2/9`` under
``21/01`` is February 9th, 2021).

**The rulings of a day.**  Every line of a line block of a day section (or
of a block quote in it, or of a subsection of it) is one ruling
(:mod:`handbook.rulings.lines`), dated with the day: its date is the day's,
shown and exported as the ruling's date (the first of its references,
``section``), and the dates written on the line are kept as its other
references and links.  A paragraph of a day section is cut into
rulings at its dates as anywhere else, and dated with the day too.

**Source headers.**  A line that is only a short label and a colon
(``| 邮件：``, ``| wiki:``, ``| 数据库：``), or a label in 【】 (``| 【邮件】``),
is not a ruling: it is the source of the rulings after it, up to the next
header of the day.  The label is
matched against the handbook's ``source_headers`` (a word contained in the
label, case aside: ``卡片数据库`` is ``数据库``) and becomes the ruling's first
source, ``(kind, detail)``: ``faq`` (数据库; the FAQ id of a link on the
line, if any), ``wiki``, ``mail`` (邮件), or ``other`` with the label itself
where the line starts its line block.  Further down, a label that names no
source (``| 例：``) introduces the lines after it: no source, and no ruling;
so does, anywhere, a label that is never a source (例, 问, 答, 注, 补充, …).
A line ``| 来源：推特`` (来源, 出处: the source after the colon) is a header too.
A line that starts with a source's label and its colon and goes on
(``| 邮件：「旋风」……。``) is a header and a ruling at once: the label is the
source of the line and of the lines after it, and no word of the ruling's text.
A subsection of a day titled with a source (``数据库``) is the source of its
lines.

**Outdated days.**  An admonition of a day section that says one of the
handbook's ``superseded_markers`` (过时; not said not to hold: 尚未过时; nor
a piece of other words: 错过时点, to miss the timing)
marks every ruling of the day as superseded: the status ``superseded``
(:mod:`handbook.rulings.statuses`), with a link to the section the
admonition links with ``:ref:``.  Where it
links none (a ``:doc:``, an address, no link), the rulings are superseded
all the same, and a note says how to link the section.

**What is wrong** is an error ``handbook.ruling`` at the day's title: a day
that is not a calendar date (``2/30``), or after the day of the build.  Its
rulings stay rulings, without a date.

**Titles as editors type them**, read as the day they name, each with a
note (information: nothing is broken, nothing fails): a title written with
full-width digits or signs (``１/５``, ``1／5``; ``handbook.ruling-fullwidth``,
with the ASCII day to write, as for a date on a line); a title that starts
with a day and goes on (``1/5（补充）``, ``1/5、1/6``, ``11/2-11/3``; ``handbook.ruling-day``:
its lines are rulings of that first day), under a month section that says
it is one (``21/01``, ``5月``: a chapter's section ``1`` may hold a ``1.1
概述``, which is no day).

**Days that are read as no days**, a warning ``handbook.ruling-day`` (CI
fails: their rulings would leave the card pages, the search and the feed
without a word): a day section (``1/5``, holding lines) at the level of the
month sections, under a section not read as a month (``一月``, ``Jan``: once,
at that section, with its title to write), or under no month at all
(:func:`_lost_day`).

**Text that is left out, said** in a note ``handbook.ruling-day`` at its
line, with the fix: days under a month section whose year neither its title
nor the page title gives (``1月`` on a page titled 调整汇总: their lines are
no rulings), once for the month; a paragraph or a list of a day that names
a card but holds no date (a day's rulings are the lines of its line
blocks).

Settings (``handbook.toml``, :mod:`handbook.core.settings`), each optional
(the words of ``source_headers`` and ``superseded_markers`` add to the
defaults, Simplified and Traditional: a handbook names only its own)::

    faq_pages = ['faq/*']                  # pages that may be yearly FAQ pages
    source_headers = { '推特' = 'other', '官网' = 'faq' }   # besides 数据库, wiki, 邮件, …
    superseded_markers = ['作废']           # besides 过时
"""

from __future__ import annotations

import dataclasses
import datetime
import fnmatch
import re
import unicodedata
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.util.nodes import clean_astext

from handbook.core import reports, settings
from handbook.core.source_lines import foreign_bar
from handbook.nodes import WORD, ancestors, is_card_link, is_reference, references_in

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

#: the settings' defaults: every page may be a yearly FAQ page; the header words
#: of the sources; the words of an admonition that says a day is outdated
DEFAULTS = {
    'handbook_faq_pages': ['*'],
    'handbook_source_headers': {  # Simplified and Traditional: a translated build reads its own
        '数据库': 'faq', '數據庫': 'faq', '資料庫': 'faq', 'database': 'faq', 'db': 'faq',
        'wiki': 'wiki', '维基': 'wiki', '維基': 'wiki', '邮件': 'mail', '郵件': 'mail',
        'mail': 'mail'},
    'handbook_superseded_markers': ['过时', '過時'],
}
#: the source kinds a header may name
KINDS = ('faq', 'wiki', 'mail', 'other')
#: the attribute of a header line: a label of the rulings under it, no text of
#: its section (the search leaves it out, handbook.search.section_texts)
SOURCE_HEADER = 'ruling_source_header'
#: a month section's title: 21/01, 2021/01, 01, 1月, 1月份, 2021年1月
_MONTH = re.compile(r'^(?:(\d{2}|\d{4})\s*(?:[/.\-]|年)\s*)?(\d{1,2})\s*(?:月份?)?$')
#: one that goes on after it (21/01（共2条）, 2021年1月裁定): with its year or 月, so
#: that a chapter's section "1 概述" is none
_STARTS_WITH_MONTH = re.compile(r'^(?:(\d{2}|\d{4})\s*(?:[/.\-]|年)\s*)?(\d{1,2})(?![\d/.\-])\s*'
                                r'(?:(月)(?![\d日号])|(?![\d月日号]))')
#: a day section's title: 1/5, 01/05, 1月5日, 1月5号, or a date with its year
#: (21/1/5, 2021-01-05, 2021年1月5日: one sign between its three parts, so
#: 11/2-11/3 is a range of days, not 2011-02-11); and a title that starts with one
_DAY_PATTERN = (r'^(?:(?P<year>\d{2}|\d{4})\s*(?:(?P<sign>[/.\-])\s*(?P<ym>\d{1,2})\s*(?P=sign)'
                r'|年\s*(?P<ym2>\d{1,2})\s*月)|(?P<m>\d{1,2})\s*(?:[/.]|月))'
                r'\s*(?P<day>\d{1,2})(?!\d)\s*[日号]?')
_DAY = re.compile(_DAY_PATTERN + '$')
_STARTS_WITH_DAY = re.compile(_DAY_PATTERN)
#: a day as editors also type it, which is not read as one (1-5, 01-05, 1.5.)
_DAY_TYPED = re.compile(r'^\s*(\d{1,2})\s*[-.．_]\s*(\d{1,2})\s*[.日号]?\s*$')
#: a page title that names a year, anywhere in it: 2021, 2021年, OCG FAQ 2021; and
#: one that is a year alone
_YEAR = re.compile(r'(?<!\d)((?:19|20)\d{2})(?!\d)')
_ONLY_YEAR = re.compile(r'^(?:19|20)\d{2}\s*年?$')
#: the labels that introduce lines and name no source, even at the start of a
#: line block: an example, a question and its answer, a remark
_NO_SOURCE = frozenset(['例', '例子', '举例', '问', '答', '问题', '回答', '注', '注意', '备注',
                        '补充', 'q', 'a'])
#: a line that names its source after a colon: 来源：推特, 出处：数据库
_SOURCE_IS = re.compile(r'^\s*(?:来源|來源|出处|出處|source)\s*[：:]\s*([^：:\n]{1,16}?)\s*$',
                        re.IGNORECASE)
#: a source's word alone on a line, without its colon: 数据库, [wiki], 邮件;
_BARE_HEADER = re.compile(r'^\s*[\[［(（【]?\s*([^\s\[\]［］()（）【】:：;；.。]{1,16})\s*[\]］)）】]?\s*[;；.。]?\s*$')
#: a line's start that is a source's label and its colon, with the ruling after it
_INLINE_HEADER = re.compile(r'^\s*(?:([^\s：:「」『』【】]{1,8})\s*[：:]|【([^】]{1,8})】)\s*')
#: a source header line: a short label and a colon, alone on its line
_HEADER = re.compile(r'^\s*(?:([^：:]{1,16}?)\s*[：:]|【([^】]{1,16})】)\s*$')


@dataclasses.dataclass(frozen=True)
class Day:
    """A day section: its date as the handbook writes dates (YY/M/D), and the
    ISO date (None where it is not a calendar date: reported)."""

    written: str
    iso: str | None


def is_faq_page(config: Config, docname: str) -> bool:
    """Whether *docname* may be a yearly FAQ page (``faq_pages``)."""
    return any(fnmatch.fnmatchcase(docname, pattern) for pattern in config.handbook_faq_pages)


def check_faq_pages(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """``env-before-read-docs``: a pattern of the handbook's ``faq_pages``
    that names no page is a warning at the line that sets it (its pages'
    rulings would be dated by no section, unsaid); where the pattern with
    its file suffix taken off names pages, that is the fix."""
    patterns = env.config.handbook_faq_pages
    if patterns == DEFAULTS['handbook_faq_pages']:
        return
    pages = sorted(env.found_docs)
    for pattern in patterns:
        if any(fnmatch.fnmatchcase(page, pattern) for page in pages):
            continue
        bare = pattern
        for suffix in env.config.source_suffix:
            bare = bare.removesuffix(suffix)
        fix = (f"write {bare!r}: a page's name has no file suffix" if bare != pattern
               and any(fnmatch.fnmatchcase(page, bare) for page in pages)
               else "write a page's name as a toctree does (faq/2021), or a glob of names "
                    "(faq/*)")
        setting = ('the option -D handbook_faq_pages' if 'handbook_faq_pages'
                   in env.config.overrides else 'faq_pages')
        reports.warning(f'{setting} holds {pattern!r}, which names no page, so no page is '
                        f'read as a yearly FAQ page through it: {fix}',
                        location=settings.where(env.config, app.srcdir, app.confdir,
                                                'handbook_faq_pages'),
                        subtype='settings')


def title_of(section: nodes.section) -> str:
    first = section[0] if section.children else None
    return clean_astext(first).strip() if isinstance(first, nodes.title) else ''


def dated_title(section: nodes.section) -> str:
    """A section's title as its date is read: full-width digits and signs
    as their ASCII forms (NFKC: ``１/５`` and ``1／5`` are ``1/5``)."""
    return unicodedata.normalize('NFKC', title_of(section))


def under_a_day(node: nodes.Node) -> bool:
    """Whether *node* sits in a section titled as a day (``1/5``, ``21/1/5``):
    where a yearly FAQ page dates its lines (told before the days are read,
    without their notes)."""
    return any(isinstance(a, nodes.section) and _STARTS_WITH_DAY.match(dated_title(a))
               for a in ancestors(node))


def page_title(document: nodes.document) -> nodes.section | None:
    """The section whose title is the page's: the first."""
    return next(iter(document.findall(nodes.section)), None)


def page_year(document: nodes.document) -> int | None:
    """The year the page title names, anywhere in it (:data:`_YEAR`), or None."""
    first = page_title(document)
    found = _YEAR.search(dated_title(first)) if first is not None else None
    return int(found[1]) if found else None


def full_year(written: str) -> int:
    """The year a date writes with two digits or four: ``90`` to ``99`` are
    1990 to 1999, the first years of the game; ``00`` to ``89`` 2000 to 2089
    (as :func:`handbook.rulings.dates.parse_date` reads a date's year)."""
    year = int(written)
    if len(written) > 2:
        return year
    return 1900 + year if year >= 90 else 2000 + year


def month_match(title: str) -> re.Match | None:
    """*title* read as a month section's (groups: its year, its month)."""
    m = _MONTH.match(title)
    if m is None:
        m = _STARTS_WITH_MONTH.match(title)
        return m if m and (m[1] or m[3]) else None
    return m


def year_of(month: nodes.section, document: nodes.document) -> int | None:
    """The year of a month section (or of the page title's, for the days
    right under it): its own, else the page title's."""
    m = month_match(dated_title(month))
    if m and m[1]:
        return full_year(m[1])
    return page_year(document)


def days_under_title(document: nodes.document) -> nodes.section | None:
    """The page title's section when the page's days are right under it: a
    page titled with a year alone (``2021年``) none of whose sections is a
    month: holding a day, or titled with the page's year (``21/01`` under
    ``2021``) or with 月, unless its title is also a day: under ``2012``,
    ``12/5`` and ``12/6（补充）`` are December 5th and 6th."""
    first = page_title(document)
    title = dated_title(first) if first is not None else ''
    if not _ONLY_YEAR.match(title):
        return None
    year = title[:4]
    for child in first.children:
        if not isinstance(child, nodes.section):
            continue
        read = dated_title(child)
        month = month_match(read)
        if month and (month[1] in (year, year[2:]) or '月' in read) and not _calendar_day(
                read, int(year)) or any(
                isinstance(inner, nodes.section) and _STARTS_WITH_DAY.match(dated_title(inner))
                for inner in child.children):
            return None
    return first


def month_day(m: re.Match) -> tuple[int, int]:
    """The month and the day of a day's title matched (:data:`_DAY_PATTERN`)."""
    return int(m['ym'] or m['ym2'] or m['m']), int(m['day'])


def _calendar_day(title: str, year: int) -> bool:
    """Whether *title* starts with a day of *year* (``12/5``, ``12/6（补充）``)."""
    m = _STARTS_WITH_DAY.match(title)
    if m is None:
        return False
    try:
        datetime.date(year, *month_day(m))
    except ValueError:
        return False
    return True


def days(document: nodes.document, today: datetime.date,
         config: Config | None = None) -> Iterator[tuple[nodes.section, Day]]:
    """The day sections of *document*, in page order, with their dates; a day
    that is not a calendar date or is after *today* is reported at its title
    (see the module docstring)."""
    under_title = days_under_title(document)
    yearless: set[int] = set()  # the month sections reported for giving no year
    reported: set[int] = set()  # the sections reported for a year not the page's
    first = page_title(document)
    titled_year = page_year(document)
    # a page titled otherwise than with a year alone may number its sections 1 › 1.2
    numbered = under_title is None and not (first is not None
                                            and _ONLY_YEAR.match(dated_title(first)))
    seen: dict[str, nodes.section] = {}  # a date -> its first day section
    no_month: set[int] = set()  # the month sections reported for naming no month
    lost: set[int] = set()  # the sections reported for holding days not read as days
    for section in document.findall(nodes.section):
        parent = section.parent
        read = dated_title(section)
        m = _DAY.match(read)
        whole = m is not None
        at = _title_line(section[0] if section.children else section)
        month_of = None
        if parent is under_title or (whole and m['year']):  # a date with its year: anywhere
            says_so = True
        else:
            month_title = dated_title(parent) if isinstance(parent, nodes.section) else ''
            month_of = month_match(month_title)
            if not month_of:
                if whole and _has_lines(section) and '.' not in read and (
                        titled_year is not None or under_title is not None) and (
                        m['year'] or _calendar_day(read, 2000)) and not _is_month(section):
                    _lost_day(section, parent, first, titled_year, at, lost)
                continue
            # not a bare number: a chapter's section "1" may hold a "1.1 概述"
            says_so = bool(month_of[1]) or '月' in month_title
            if whole and not says_so and '.' in read and not month_title.startswith('0') \
                    and numbered:
                continue  # nor a bare "1.2" under a "1" on a page titled otherwise than
                # with a year alone: a chapter's numbered sections (2020年规则变更: 1 › 1.2)
        if not whole:
            # a title that starts with a day and goes on (1/5（补充）), under a
            # section that says it holds days (21/01, 1月, 2021年)
            m = _STARTS_WITH_DAY.match(read)
            if m is None and says_so and _has_lines(section) and (
                    any(map(str.isdigit, read)) or _ruling_shaped(section)):
                _not_a_day(section, parent, read, at)  # a day mistyped (1-5, Jan 5), or 备注
            if m is None or not says_so:
                continue
        if month_of is not None and says_so and not 1 <= int(month_of[2]) <= 12 \
                and id(parent) not in no_month:
            no_month.add(id(parent))
            _no_month(parent, month_of)
        year = full_year(m['year']) if m['year'] else year_of(parent, document)
        if year is not None and year != titled_year and titled_year is not None:
            _other_year(section if m['year'] else parent, bool(m['year']), year, titled_year,
                        reported, config)
        if year is None:
            if says_so and id(parent) not in yearless:
                yearless.add(id(parent))
                heading = parent[0] if parent.children else parent
                reports.note(
                    f'the days of {title_of(parent)!r} have no year: neither its title nor the '
                    'page title gives one, so their lines are not rulings; write the year in '
                    'the month\'s title (YY/MM: 21/01) or in the page title (2021年)',
                    location=_title_line(heading), subtype='ruling-day', config=config)
            continue
        written_title, day_text = title_of(section), m.group().rstrip()
        if day_text not in written_title:
            reports.note(f'day section {written_title!r} writes its day with full-width '
                         f'characters: write {day_text} (the same day)', location=at,
                         subtype='ruling-fullwidth', config=config)
        if not whole:
            reports.note(f'day section {written_title!r} of {title_of(parent)!r} is read as the '
                         f'day {day_text}: its lines are rulings of that day (a line of another '
                         'day needs a section of its own)', location=at, subtype='ruling-day',
                         config=config)
        month, day = month_day(m)
        written = f'{year % 100:02d}/{month}/{day}'
        try:
            date = datetime.date(year, month, day)
        except ValueError:
            reports.error(f'day section {title_of(section)!r} of {title_of(parent)!r} is not a '
                          f'calendar date ({year}-{month:02d}-{day:02d}): check the month and '
                          'the day; its rulings are shown without a date',
                          location=at, subtype='ruling')
            yield section, Day(written, None)
            continue
        if date > today:
            reports.error(f'day section {title_of(section)!r} of {title_of(parent)!r} '
                          f'({date.isoformat()}) is after today ({today.isoformat()}); check '
                          'the year of the month section or of the page title',
                          location=at, subtype='ruling')
            yield section, Day(written, None)
            continue
        iso = date.isoformat()
        if iso in seen:
            _day_again(section, seen[iso], date, at, config)
        else:
            seen[iso] = section
        yield section, Day(written, iso)


def _lost_day(section: nodes.section, parent: nodes.Element, first: nodes.section | None,
              year: int | None, at: str | nodes.Element, lost: set[int]) -> None:
    """A warning for a day section (``1/5``, holding lines) that is read as
    no day, because it is under no month section: its lines would be lost
    to the card pages, the search and the feed without a word (an editor's
    round trip), which CI must not let pass.  At the level of the month
    sections (underlined as they are): at the day.  Under a section that is
    not read as a month (``一月``, ``Jan``): once, at that section, with the
    title to write (the month it names, else its first day's; the page's
    year).  Under the page title, where days are not read (the page has
    months): at the day."""
    months = [sibling for sibling in parent.children if isinstance(sibling, nodes.section)
              and sibling is not section and _is_month(sibling)]
    if months:
        message = (f'day section {title_of(section)!r} is at the level of the month sections '
                   '(its title is underlined as theirs are), so its lines are no rulings: '
                   'underline it as the days are, under its month')
    elif isinstance(parent, nodes.section) and parent is not first:
        if id(parent) in lost:
            return
        lost.add(id(parent))
        days = [title_of(child) for child in parent.children
                if isinstance(child, nodes.section) and _DAY.match(dated_title(child))]
        named = _month_named(title_of(parent))
        month = named or month_day(_DAY.match(dated_title(section)))[0]
        title = f'{year % 100:02d}/{month:02d}' if year is not None else f'YY/{month:02d}'
        held = ', '.join(repr(day) for day in days[:3]) + (', …' if len(days) > 3 else '')
        message = (f'section {title_of(parent)!r} holds the day sections {held} but is not read '
                   'as a month section (YY/MM), so their lines are no rulings: title it '
                   f'{title}' + ('' if named else ' (the month of its first day)')
                   + f', over an underline of {len(title)} characters or more')
        at = _title_line(parent[0] if parent.children else parent)
    else:
        message = (f'day section {title_of(section)!r} is under no month section, so its lines '
                   'are no rulings: write it under its month\'s section (YY/MM), underlined as '
                   'the other days are')
    reports.warning(message, location=at, subtype='ruling-day')


#: months as editors also name them: 一月 … 十二月, Jan … Dec, January … December
_MONTH_NAMES = {name: i for names in (
    '一 二 三 四 五 六 七 八 九 十 十一 十二', 'jan feb mar apr may jun jul aug sep oct nov dec',
    'january february march april may june july august september october november december')
    for i, name in enumerate(names.split(), 1)}


def _month_named(title: str) -> int | None:
    """The month a title names in words (``一月``, ``Jan``, ``January``), or None."""
    return _MONTH_NAMES.get(title.strip().lower().removesuffix('月份').removesuffix('月')
                            .removesuffix('.'))


def _no_month(month: nodes.section, m: re.Match) -> None:
    """A warning for a month section whose title names no month (``21/13``):
    its days keep their dates (a day's month is its own), but the reader
    sees a month that is none.  The fix: the month of its first day."""
    written, read = title_of(month), dated_title(month)
    months = [month_day(d)[0] for d in (
        _DAY.match(dated_title(child)) for child in month.children
        if isinstance(child, nodes.section)) if d is not None and 1 <= month_day(d)[0] <= 12]
    if months and read == written:
        start, end = m.span(2)
        padded = end - start == 2 and '月' not in read  # 21/01, but 1月
        digits = f'{months[0]:02d}' if padded else str(months[0])
        whose = 'its days' if len(set(months)) == 1 else 'its first day'
        fix = f'write {written[:start]}{digits}{written[end:]}, the month of {whose}'
    else:
        fix = 'write the month of its days, 01 to 12'
    heading = month[0] if month.children else month
    reports.warning(f'month section {written!r} names no month ({m[2]}): {fix}',
                    location=_title_line(heading), subtype='ruling-day')


def _day_again(section: nodes.section, first: nodes.section, date: datetime.date,
               at: str | nodes.Element, config: Config | None) -> None:
    """A note for a day section of a date the page has a section for already:
    its lines are rulings of that day, but the day's anchor is no longer the
    first's alone (both are named by their month, then numbered)."""
    title = first[0] if first.children else first
    line = title.line - 1 if title.line else None
    where = f'line {line}' if line else repr(title_of(first))
    reports.note(f'day section {title_of(section)!r} is the day {date.isoformat()} a second '
                 f'time on this page (first at {where}): write its lines under the first (the '
                 'day then has one section, and one anchor)',
                 location=at, subtype='ruling-day', config=config)


def _other_year(section: nodes.section, is_day: bool, year: int, page_year: int,
                reported: set[int], config: Config | None) -> None:
    """A note, once for *section* (a month, or a day that writes its year:
    *is_day*), whose title gives its days a year that is not the page title's."""
    if id(section) in reported:
        return
    reported.add(id(section))
    title = title_of(section)
    written = dated_title(section)
    m = _STARTS_WITH_DAY.match(written) if is_day else month_match(written)
    group = 'year' if is_day else 1
    fix = (f'write {written[:m.start(group)]}{str(page_year)[-len(m[group]):]}'
           f'{written[m.end(group):]}' if m is not None and m[group] else
           f'write the year {page_year}')
    reports.note(f'section {title!r} dates its days {year}, but the page title says {page_year}: '
                 f'if they are of {page_year}, {fix}',
                 location=_title_line(section[0] if section.children else section),
                 subtype='ruling-day', config=config)


def _has_lines(section: nodes.section) -> bool:
    """Whether *section* holds a line block of its own (the shape of a day's rulings)."""
    return any(isinstance(child, nodes.line_block) for child in section.children)


def _is_month(section: nodes.section) -> bool:
    """Whether *section* is titled as a month that says it is one (21/01, 1月):
    no day of a year (2000: leap) or, if it could be one (12/05), holding sections."""
    title = dated_title(section)
    m = month_match(title)
    return bool(m and (m[1] or '月' in title)) and (
        not _calendar_day(title, 2000)
        or any(isinstance(child, nodes.section) for child in section.children))


def _ruling_shaped(section: nodes.section) -> bool:
    """Whether a line of *section*'s own line blocks names a card or is a
    source's header (``| 数据库：``): the lines of a day, not a note's."""
    return any(is_card_link(node) or (isinstance(node, nodes.line) and label_of(node))
               for block in section.children if isinstance(block, nodes.line_block)
               for node in block.findall(nodes.Element))


def _not_a_day(section: nodes.section, month: nodes.section, read: str,
               at: str | nodes.Element) -> None:
    """A warning for a section of a month, holding lines, whose title is no
    day: a day mistyped (``1-5``, ``Jan 5``), or lines shaped as a day's
    under another title (``备注``).  Its lines would be lost to the card
    pages, the search and the feed, which CI must not let pass (a CI
    maintainer's round trip: it was a note, or nothing)."""
    typed = _DAY_TYPED.match(read)
    fix = (f'write its day as {int(typed[1])}/{int(typed[2])}' if typed
           else 'title it with its day, month/day (1/5)')
    if not any(map(str.isdigit, read)):  # its lines may be a note's: the way to say so
        fix += '; if they are no rulings, write them as a paragraph, without the |'
    reports.warning(f'section {title_of(section)!r} of {title_of(month)!r} is not read as a '
                    f'day, so its lines are no rulings: {fix}', location=at,
                    subtype='ruling-day')


def _title_line(title: nodes.Element) -> str | nodes.Element:
    """Where a section's *title* is written: docutils places a title at its
    underline, and the title's own text is the line above."""
    return f'{title.source}:{title.line - 1}' if title.source and title.line else title


def header_shaped(text: str) -> re.Match | None:
    """Whether *text* has a source header's shape: a short label and a colon,
    or a label in 【】, alone on one line (``21/1/6 邮件：`` too: a date
    written in it is part of the label, :mod:`handbook.rulings.dates`)."""
    return None if '\n' in text else _HEADER.match(text)


def label_of(line: nodes.line) -> str | None:
    """The label of a line that is only a label and a colon, or a label in
    【】 (``| 邮件：``, ``| 例：``), with no card and no date in it; else None."""
    m = header_shaped(line.astext())
    if not m or any(is_card_link(n) or 'ruling_text' in n.attributes
                    for n in line.findall(nodes.Element) if n is not line):
        return None
    return (m[1] or m[2]).strip()


def header(line: nodes.line, config: Config, first: bool) -> tuple[str, str] | None:
    """The source a header line names, ``(kind, detail)``, or None when
    *line* is not a header (see the module docstring): a label alone on the
    line (:func:`label_of`) that names a source of ``source_headers``, or
    any such line that starts its line block (*first*: ``| 推特：``), or a
    line that names its source after a colon (``| 来源：推特``); a
    ``| 例：`` further down introduces the lines after it: no source, and
    no ruling either)."""
    named = _SOURCE_IS.match(line.astext())
    if named and not any(is_card_link(n) or 'ruling_text' in n.attributes
                         for n in line.findall(nodes.Element) if n is not line):
        return _source_named(named[1], config) or ('other', named[1])
    label = label_of(line)
    if label is None or label.casefold() in _NO_SOURCE:
        return None
    return _source_named(label, config) or (('other', label) if first else None)


def inline_header(line: nodes.line, config: Config
                  ) -> tuple[tuple[str, str], int | None] | None:
    """The source that the start of *line* names, when the line goes on
    after the label and its colon (``| 邮件：「旋风」……``, ``| 【wiki】…``), and
    the number of characters of its first text that are the label (no word
    of the ruling), or None where only dates follow it (``| 邮件：21/3/1``: a
    header); else None.  Only a label that names a source of
    ``source_headers`` counts: ``| 注意：…`` is a ruling's text."""
    first = line.children[0] if line.children else None
    if not isinstance(first, nodes.Text):
        return None
    m = _INLINE_HEADER.match(first.astext())
    if m is None or (m.end() == len(first.astext()) and len(line.children) == 1):
        return None
    # an ASCII word whole (feedback: is no db), a Chinese one anywhere (卡片数据库)
    named = _source_named((m[1] or m[2]).strip(), config, ascii_whole=True)
    if named is None:
        return None
    rest = first.astext()[m.end():] + ''.join(
        child.astext() for child in line.children[1:] if not is_reference(child))
    # 邮件：21/3/1, the label and dates alone: a header, no ruling of no text
    return named, m.end() if WORD.search(rest) else None


def _bare_header(line: nodes.line, config: Config) -> tuple[str, str] | None:
    """The source of a line that is a source's word alone, without its colon
    (``| 数据库``, ``| [wiki]``, ``| 邮件;``): a header all the same, with a
    note that gives the line to write; else None."""
    m = _BARE_HEADER.match(line.astext())
    if not m or any(isinstance(child, nodes.Element) for child in line.children):
        return None
    label = m[1]
    for word, kind in with_defaults(config, 'handbook_source_headers').items():
        if word.casefold() == label.casefold():
            reports.note(f'the line {line.astext().strip()!r} is read as the source header of '
                         f'the lines below it: write "| {label}：" (a header ends with its colon)',
                         location=line, subtype='ruling-day', config=config)
            return kind, ''
    return None


def _source_named(label: str, config: Config,
                  ascii_whole: bool = False) -> tuple[str, str] | None:
    """The source *label* names (a word of ``source_headers`` in it, or of
    the defaults, which the handbook's words add to), if any; *ascii_whole*:
    an ASCII word only as a word of its own (``feedback`` holds no ``db``)."""
    folded = label.casefold()
    for word, kind in with_defaults(config, 'handbook_source_headers').items():
        word = word.casefold()
        if (re.search(rf'(?<![a-z]){re.escape(word)}(?![a-z])', folded)
                if ascii_whole and word.isascii() else word in folded):
            return kind, ''
    return None


def with_defaults(config: Config, name: str) -> dict[str, str] | list[str]:
    """The words of the setting *name* (``source_headers``,
    ``superseded_markers``), then the defaults the handbook's words add to."""
    own, default = getattr(config, name), DEFAULTS[name]
    if isinstance(default, dict):
        return {**own, **{word: kind for word, kind in default.items() if word not in own}}
    return [*own, *(word for word in default if word not in own)]


#: words a marker's first or last character is part of where the text says
#: other words: 错过时点 (to miss the timing), 被跳过时 (when it is skipped), 超过时限
#: hold 过时 but say nothing outdated; 经过 does, but not in 已经过时 (already outdated)
_OTHER_WORDS = frozenset({'错过', '錯過', '跳过', '跳過', '略过', '略過', '越过', '越過',
                          '超过', '超過', '通过', '通過', '经过', '經過', '时点', '時點',
                          '时机', '時機', '时间', '時間', '时候', '時候', '时刻', '時刻',
                          '时段', '時段', '时限', '時限'})


def says(text: str, marker: str) -> bool:
    """Whether *text* says the word *marker*: not said not to hold (尚未过时,
    没有过时), nor a piece of two other words (错过时点, 被跳过时:
    :data:`_OTHER_WORDS`; 已经过时 says it)."""
    for found in re.finditer(f'(?<![未不没沒非])(?<!没有)(?<!沒有){re.escape(marker)}', text):
        start, end = found.span()
        before = text[start - 1:start] + marker[0]
        if before in ('经过', '經過') and text[start - 2:start - 1] == '已':
            before = ''  # 已经 + 过时
        if before not in _OTHER_WORDS and marker[-1] + text[end:end + 1] not in _OTHER_WORDS:
            return True
    return False


def superseding(section: nodes.section, config: Config) -> tuple[bool, str | None]:
    """Whether an admonition of the day *section* says its rulings are
    outdated (one of ``superseded_markers``), and the label of the section
    it links with ``:ref:``, the one that supersedes them (None: no such
    link; a note says how to give one)."""
    markers = with_defaults(config, 'handbook_superseded_markers')
    for child in section.children:
        if not isinstance(child, nodes.Admonition):
            continue
        text = child.astext()
        if not any(says(text, marker) for marker in markers):
            continue  # none, or each said not to hold (尚未过时, 并未过时, 没有过时)
        for xref in child.findall(addnodes.pending_xref):
            if xref.get('refdomain') == 'std' and xref.get('reftype') == 'ref':
                return True, xref['reftarget']
        reports.note(f'the day {title_of(section)!r} is outdated, but its note links no section '
                     'with :ref:, so its rulings show 已过时 with no link to what supersedes them: '
                     'link that section, 最新调整见\\ :ref:`标签`\\ 中的内容',
                     location=child, subtype='ruling-day', config=config)
        return True, None
    return False, None


@dataclasses.dataclass(frozen=True)
class DayLine:
    """A line of a day that is a ruling, and what the day says of it."""

    line: nodes.line
    day: Day
    source: tuple[str, str] | None
    outdated: bool
    superseded_by: str | None  # the label of the section that supersedes it, if linked
    #: characters of the line's first text that are its source's label, no
    #: word of the ruling (``邮件：`` of ``| 邮件：「旋风」……``: :func:`inline_header`)
    label: int = 0


def day_lines(section: nodes.section, day: Day, config: Config) -> Iterator[DayLine]:
    """The lines of the day *section*'s line blocks that are rulings, each with
    the source header above it (the headers themselves are not rulings, nor
    are empty lines)."""
    outdated, superseded_by = superseding(section, config)
    yield from _lines_of(section, section, day, config, outdated, superseded_by, None)


def _lines_of(container: nodes.Element, section: nodes.section, day: Day, config: Config,
              outdated: bool, superseded_by: str | None, source: tuple[str, str] | None
              ) -> Iterator[DayLine]:
    """The ruling lines of the line blocks of *container*, a day *section*
    or what it holds: an indented block (a block quote), or a subsection of
    the day, whose title is the source of its lines where it names one
    (``邮件`` under ``1/5``)."""
    for child in container.children:
        if isinstance(child, nodes.block_quote):
            yield from _lines_of(child, section, day, config, outdated, superseded_by, source)
            continue
        if isinstance(child, nodes.section):
            named = _source_named(title_of(child), config)
            yield from _lines_of(child, section, day, config, outdated, superseded_by,
                                 named or source)
            continue
        if not isinstance(child, nodes.line_block):
            _loose_ruling(child, section, day, config)
            continue
        for i, line in enumerate(child.findall(nodes.line)):
            named = header(line, config, first=i == 0) or _bare_header(line, config)
            if named is not None:
                source = named
                line[SOURCE_HEADER] = True
            elif line.astext().strip() and label_of(line) is None:  # 例： is no ruling
                inline = inline_header(line, config)
                if inline is not None:  # | 邮件：「旋风」……: the header and its first ruling
                    source = inline[0]
                    if inline[1] is None:  # | 邮件：21/3/1: the header alone
                        line[SOURCE_HEADER] = True
                        continue
                yield DayLine(line, day, source, outdated, superseded_by,
                              inline[1] if inline is not None else 0)


def _loose_ruling(block: nodes.Node, section: nodes.section, day: Day, config: Config) -> None:
    """A note for a paragraph or a list of the day *section* that names a card
    but holds no date: it reads as a ruling of the day, and is none."""
    if not isinstance(block, (nodes.paragraph, nodes.bullet_list, nodes.enumerated_list)):
        return
    if any(map(foreign_bar, block.astext().split('\n'))):  # the markup error says the fix
        return
    if next(references_in(block), None) is not None or not any(
            is_card_link(node) for node in block.findall(nodes.Element)):
        return
    above = _line_block_above(block)
    if above is not None:  # a line of the block above, left unindented
        reports.note(f'this paragraph of the day {title_of(section)!r} names a card but is no '
                     f'ruling: it follows the line block above with no blank line; indent it '
                     f'under the text of line {above} to go on with that ruling, or start it '
                     f'with "| " to make it a ruling of {day.iso or day.written} of its own',
                     location=block, subtype='ruling-day', config=config)
        return
    if isinstance(block, nodes.paragraph):
        what, fix = 'paragraph', 'start it with "| " (and indent its other lines)'
    else:
        marker = (f'"{block.get("bullet", "-")} "' if isinstance(block, nodes.bullet_list)
                  else "each item's number")
        what, fix = 'list', f'write its items as the lines of a line block ("| " for {marker})'
    reports.note(f'this {what} of the day {title_of(section)!r} names a card but is no ruling: '
                 f'a day\'s rulings are the lines of its line blocks; {fix} to make '
                 f'{"its items rulings" if what == "list" else "it a ruling"} of '
                 f'{day.iso or day.written}',
                 location=block, subtype='ruling-day', config=config)


def _line_block_above(block: nodes.Node) -> int | None:
    """The source line of the last line of the line block that *block*, a
    paragraph, follows with no blank line between (docutils: "Line block
    ends without a blank line"): a line block's line the editor did not
    indent.  None where it does not, or where that line is no ruling's (a
    source's header)."""
    if not isinstance(block, nodes.paragraph) or block.line is None \
            or block.astext().startswith('|'):  # a bar without its space: "| " is the fix
        return None
    parent = block.parent
    if parent is None:
        return None
    siblings = [node for node in parent.children[:parent.index(block)]
                if not isinstance(node, nodes.system_message)]
    before = siblings[-1] if siblings else None
    if not isinstance(before, nodes.line_block):
        return None
    lines = list(before.findall(nodes.line))
    last = lines[-1] if lines else None
    if last is None or last.line is None \
            or header_shaped(last.astext()):  # a source's header is no ruling to go on
        return None
    end = last.line + last.astext().count('\n')
    return last.line if end + 1 == block.line else None


def day_of(node: nodes.Node, sections: dict[int, Day]) -> Day | None:
    """The day of the day section that holds *node*, if any, in a subsection
    of it too (*sections*: the page's day sections, by ``id()``)."""
    while node is not None:
        if isinstance(node, nodes.section) and id(node) in sections:
            return sections[id(node)]
        node = node.parent
    return None
