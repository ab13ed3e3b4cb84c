"""Property tests (issue 34): pages and registry rows generated from the
markup alphabet -- 「」, backquotes, ``_``, roles, ``**``, ``|``, dates, URLs
of every scheme with backslashes and user names, control and bidi
characters, long lines -- and yearly FAQ pages (issue 31: months, days and
source headers typed right and wrong, struck lines, a page's own role
declarations), built with every extension (tests/roots/test-properties).
Whatever the input:

* no traceback: the build ends, with no exception;
* every report is located (``path:line``);
* every ``href`` and ``src`` of every output (HTML, the feed's and the
  sitemap's XML, ``rulings.json``, the search files) passes the URL policy
  (:mod:`handbook.core.url_policy`);
* no ``<`` of the input reaches the output unescaped;
* no exported ruling is without text.

``make test`` runs a fixed seed and a few examples, within 20 s;
``make fuzz`` runs many more, with a new seed each time
(``HANDBOOK_FUZZ_EXAMPLES``, the count, and ``--hypothesis-seed``).
"""

from __future__ import annotations

import datetime
import html
import json
from html.parser import HTMLParser
from xml.etree import ElementTree
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, seed, settings
from hypothesis import strategies as st
from sphinx.util.console import strip_escape_sequences
from sphinx.util.docutils import docutils_namespace

from handbook.core import url_policy

#: ``make fuzz`` sets it: how many examples (else the fixed ``make test`` run)
FUZZ = int(os.environ.get('HANDBOOK_FUZZ_EXAMPLES', '0'))

#: tags and attributes that only the input's markup could have made
INPUT_TAGS = frozenset({'x-fuzz'})

names = st.sampled_from(['旋风', '神之宣告', '星骑士', '王宫的铁壁', '旋\u202e风', '黑\x01洞',
                         '『效果』', '○○', 'A', '<x-fuzz>', 'a`b', 'x_y', '「嵌」'])
schemes = st.sampled_from(['https', 'http', 'HTTPS', 'javascript', 'JaVaScRiPt', 'data', 'ftp',
                           'file', 'mailto', 'vbscript', ''])
hosts = st.sampled_from(['www.db.yugioh-card.com', 'ygocdb.com', 'evil.host', '127.0.0.1',
                         '169.254.169.254', '例子.中国', 'www.db.yugioh-card%2Ecom', ''])


@st.composite
def urls(draw) -> str:
    scheme = draw(schemes)
    start = draw(st.sampled_from(['//', '\\\\', '/\\', '', '///']))
    user = draw(st.sampled_from(['', 'user@', 'a:b@', 'evil.host\\@', 'www.db.yugioh-card.com@']))
    path = draw(st.sampled_from(['/', '/x?fid=1', '/a b', '/<x-fuzz>', '/"onmouseover="x',
                                 '/\u202ex', '/\x01', '', '#frag']))
    return f'{scheme}{":" if scheme else ""}{start}{user}{draw(hosts)}{path}'


dates = st.sampled_from(['17/3/24', '１７/３/２４', '17／3／24', '17/2/30', '2017-3-24', '89/1/1',
                         '17/3', '24/12/31'])


@st.composite
def fragments(draw) -> str:
    kind = draw(st.integers(0, 15))
    if kind == 0:
        return f'「`{draw(names)}`_」'
    if kind == 1:
        return f'「{draw(names)}」'
    if kind == 2:
        return f'\\ :ruling:`{draw(dates)}`'
    if kind == 3:
        target = draw(st.one_of(urls(), st.sampled_from(['faq:19691', 'faq:x', 'faq:'])))
        return f'\\ :ruling:`{draw(dates)} <{target}>`'
    if kind == 4:  # a legacy date link: the date alone, in brackets, among words
        text = draw(st.sampled_from(['{}', '（{}）', '[{}]', '【{}', '{} FAQ'])).format(draw(dates))
        return f'`{text} <{draw(urls())}>`__'
    if kind == 5:
        return f'`链接 <{draw(urls())}>`__'
    if kind == 6:
        return f':strike:`{draw(st.text("不能发动。`*_<>「」", max_size=8))}`'
    if kind == 7:
        return f'**{draw(st.text("强调「」`_", max_size=6))}**'
    if kind == 8:
        return draw(st.sampled_from(['<x-fuzz>', '<script>alert(1)</script>', '<img src=x>',
                                     '&lt;', '>']))
    if kind == 9:
        return draw(st.sampled_from(['\x01', '\x7f', '\u202e', '\u200b', '\u2028', '\ufeff',
                                     '\t', '\x0b']))
    if kind == 10:
        return draw(st.sampled_from(['`', '_', '*', '|', '\\', ':', '..', '`_', '``']))
    if kind == 11:
        return f':ref:`{draw(st.sampled_from(["同时处理", "<x-fuzz>", "调整中"]))}`'
    if kind == 12:
        return f'.. image:: {draw(urls())}\n'
    if kind == 13:
        return 'x' * draw(st.sampled_from([200, 3000]))
    if kind == 14:  # a date as plain text, or text written as one; in brackets, lists
        return draw(st.one_of(dates, st.sampled_from([
            '4/5/6', '13/14/15', 'v1.17/3/24', '（17/3/24）', '【（17/3/24）】',
            '17/3/24、17/12/22：', '（17/3/24、17/4/2 修正）', '（', '）', ' （17/7/28 修正） ',
            '（裁定变更）', '【问】', '（1）', '『', '』', '“', ' 和 ', '17/3/24：'])))
    return draw(st.text('的效果不能发动。，「」、 ', max_size=10))


@st.composite
def pages(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        start = draw(st.sampled_from(['| ', '', '- | ', '\n| ', '\n']))
        lines.append(start + ''.join(draw(st.lists(fragments(), min_size=1, max_size=6))))
    title = draw(st.sampled_from(['生成的页', '同时\u202e处理', '<x-fuzz>', '「`旋风`_」']))
    return f'{title}\n{"=" * 20}\n\n' + '\n'.join(lines) + '\n'


#: a yearly FAQ page's titles and headers as editors type them, right and wrong
years = st.sampled_from(['2021', '2021年', '２０２１', '<x-fuzz>', '1999', '2999', '调整汇总'])
months = st.sampled_from(['21/01', '2021/1', '5月', '5月份', '２１/０１', '21/13', '01', '1',
                          '21/00'])
days = st.sampled_from(['1/5', '1月5日', '1月5号', '１/５', '1／5', '2/30', '0/0', '99/99',
                        '1/5（补充）', '1/5、1/6', '1.1 概述', '补充说明', '12/31', '「`旋风`_」',
                        '21/1/5', '2021-01-05', '20/12/31（补充）', '21/2/30', '99/1/1'])
headers = st.sampled_from(['| 邮件：', '| wiki:', '| 【数据库】', '| 数据库 :', '| 21/1/5 邮件：',
                           '| :strike:`邮件：`', '| 例：', '| <x-fuzz>：', '|'])
declarations = st.sampled_from(['', '.. role:: strike\n', '.. role:: strike\n    :class: strike\n',
                                '.. role:: del\n    :class: strike\n', '.. role:: red\n',
                                '.. role:: strike(raw)\n    :format: html\n'])


#: the texts of the generated headers that name a source: never a ruling
SOURCE_HEADERS = frozenset({'邮件：', 'wiki:', '【数据库】', '数据库 :'})
#: an outdated day's note, as issue 31 shows it, and one that links a page, not a section
OUTDATED = st.sampled_from([
    '.. attention:: 这些调整已经过时，最新调整见\\ :ref:`同时处理`\\ 中的内容。',
    '.. attention:: 这些调整已经过时，最新调整见\\ :doc:`index`\\ 。'])


@st.composite
def faq_pages(draw) -> str:
    """A yearly FAQ page (issue 31's shape): a year, months, days, source
    headers over line-block lines of fragments, an outdated day's note."""
    out = ['=' * 20, draw(years), '=' * 20, '', draw(declarations)]
    for _ in range(draw(st.integers(1, 2))):
        out += [draw(months), '=' * 20, '']
        for _ in range(draw(st.integers(1, 3))):
            out += [draw(days), '-' * 20, '']
            if draw(st.booleans()):
                out += [draw(OUTDATED), '']
            if draw(st.booleans()):  # a paragraph or a list under the day: no line block
                start = draw(st.sampled_from(['', '- ', '1. ']))
                out += [start + ''.join(draw(st.lists(fragments(), min_size=1, max_size=3))), '']
            for _ in range(draw(st.integers(1, 2))):
                out.append(draw(headers))
                for _ in range(draw(st.integers(0, 3))):
                    role = draw(st.sampled_from(['', ':strike:', ':del:', ':red:']))
                    text = ''.join(draw(st.lists(fragments(), min_size=1, max_size=4)))
                    out.append(f'| {role}`{text}`' if role and '`' not in text else f'| {text}')
                out.append('')
    return '\n'.join(out) + '\n'


@st.composite
def registries(draw) -> str:
    rows = ['# kind\tname\tid\turl\taliases', 'card\t旋风']
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(['card', 'series', 'bogus']))
        ident = draw(st.sampled_from(['', '4711', 'x', '-1']))
        url = draw(st.one_of(st.just(''), urls()))
        aliases = draw(st.sampled_from(['', 'zh_TW:旋風', 'bad', 'en:<x-fuzz>']))
        rows.append(f'{kind}\t{draw(names)}\t{ident}\t{url}\t{aliases}')
    return '\n'.join(rows) + '\n'


#: an output file's addresses: attributes (HTML, XML) and URL fields (JSON, JS)
_ATTRIBUTE = re.compile(r'''\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')''')
_FIELD = re.compile(r'"(?:url|href|src|link|uri|sources?)"\s*:\s*"((?:[^"\\]|\\.)*)"')
#: a report's location, as Sphinx prints it: path:line (a line may be missing
#: only where docutils gives none, which the handbook's reports never do)
_LOCATED = re.compile(r'^\S+?:\d+: (?:ERROR|WARNING|CRITICAL|SEVERE): ')


def addresses(path: Path, text: str) -> list[str]:
    found = [html.unescape(a or b) for a, b in _ATTRIBUTE.findall(text)]
    if path.suffix in ('.json', '.js'):
        found += [json.loads(f'"{value}"') for value in _FIELD.findall(text)]
    return found


def check_outputs(outdir: Path) -> None:
    for path in sorted(outdir.rglob('*')):
        if not path.is_file() or path.suffix not in ('.html', '.xml', '.json', '.js'):
            continue
        relative = path.relative_to(outdir).as_posix()
        text = path.read_text(encoding='utf-8')
        if relative.startswith('_static/') and path.suffix == '.js' \
                and not relative.startswith('_static/rulings'):
            continue  # the theme's and Sphinx's scripts: code, not the input's
        page = relative.rsplit('.', 1)[0]
        for address in addresses(path, text):
            if address.startswith('#'):
                continue
            # the 404 page links from the host's root: the site's root is conf.py's address's
            assert url_policy.problem(address, page=page, root='/') is None, (relative, address)
        if path.suffix == '.html':
            markup = Markup()
            markup.feed(text)
            assert markup.found == [], (relative, markup.found)
        elif path.suffix == '.xml':  # well-formed, so every < of the text is escaped
            root = ElementTree.fromstring(text.encode('utf-8'))
            assert not [e for e in root.iter() if e.tag.rsplit('}', 1)[-1] in INPUT_TAGS], relative
        elif relative == 'rulings.json':
            for ruling in json.loads(text)['rulings']:
                # every date a calendar date, none after today; a source header no
                # ruling; no ruling without text
                for day in filter(None, [ruling['date'], *ruling['dates']]):
                    assert datetime.date.fromisoformat(day) <= datetime.date.today(), ruling
                assert ruling['text'].strip() not in SOURCE_HEADERS, ruling
                assert ruling['text'].strip(), ruling


class Markup(HTMLParser):
    """The markup of a page that came from the input: a tag of its own, an
    image whose source is ``x``, an event handler, a script that alerts."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in INPUT_TAGS or (tag == 'img' and ('src', 'x') in attrs) \
                or any(name.startswith('on') for name, _value in attrs):
            self.found.append(self.get_starttag_text() or tag)
        self.in_script = tag == 'script'

    def handle_endtag(self, tag: str) -> None:
        self.in_script = False

    def handle_data(self, data: str) -> None:
        if self.in_script and 'alert(1)' in data:
            self.found.append(f'<script>{data[:80]}')


@pytest.fixture(scope='module')
def workdir(tmp_path_factory, rootdir) -> Path:
    folder = tmp_path_factory.mktemp('properties')
    return Path(shutil.copytree(rootdir / 'test-properties', folder / 'src'))


def build_example(make_app, srcdir: Path, page: str, registry: str) -> None:
    (srcdir / 'page.rst').write_text(page, encoding='utf-8')
    (srcdir / 'cards.tsv').write_text(registry, encoding='utf-8')
    out = srcdir.parent / 'out'
    shutil.rmtree(out, ignore_errors=True)
    with docutils_namespace():  # each example its own docutils registries
        app = make_app('html', srcdir=srcdir, builddir=out, freshenv=True)
        try:
            app.build()  # no exception
        finally:
            app.cleanup()
    reported = strip_escape_sequences(app.warning.getvalue())
    assert 'Traceback' not in reported
    reports: list[list[str]] = []  # each report's lines
    for line in reported.splitlines():
        if _LOCATED.match(line):
            reports.append([line])
        elif line.strip():
            assert reports, line  # a line before any located report
            reports[-1].append(line)
    for lines in reports:
        # one line each; only docutils' own messages go on, quoting the source
        # they are about (``Incomplete section title.`` and the lines), up to
        # their [docutils]
        assert len(lines) == 1 or lines[-1].endswith(' [docutils]'), lines
    for line in strip_escape_sequences(app.status.getvalue()).splitlines():
        if ' note: ' in line:
            assert re.match(r'^\S+?:\d+: note: ', line), line
    check_outputs(app.outdir)


EXAMPLES = FUZZ or 10


@seed(None if FUZZ else 34)
@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=not FUZZ,
          suppress_health_check=list(HealthCheck),
          # make test: the examples as drawn (a failure is printed as it was);
          # make fuzz: shrunk to the smallest failing page
          phases=[Phase.explicit, Phase.generate] + ([Phase.shrink] if FUZZ else []))
@given(page=st.one_of(pages(), faq_pages()), registry=registries())
# what make fuzz found: a role's text running on into the next line (reported
# over two lines, then); a line of four asterisks (docutils quotes the source)
@example(page='生成的页\n====================\n\n「`旋风`_」:ref:`同时处理`「旋风」\n'
              '| :ref:`同时处理`\n', registry='# kind\tname\tid\turl\taliases\ncard\t旋风\n')
@example(page='生成的页\n====================\n\n****\n| 「`旋风`_」\n',
         registry='# kind\tname\tid\turl\taliases\ncard\t旋风\n')
def test_any_page_and_registry_build_safely(make_app, workdir, page, registry):
    build_example(make_app, workdir, page, registry)


@pytest.mark.parametrize(('name', 'text'), [
    ('page.html', '<p>「旋风」<img src=x onerror=alert(2)></p>'),
    ('page.html', '<p><a href="javascript:alert(1)">「旋风」</a></p>'),
    ('feed.xml', '<feed><x-fuzz/></feed>'),
    ('rulings.json', '{"rulings": [{"date": "2017-03-24", "dates": [], "text": "邮件："}]}'),
    ('rulings.json', '{"rulings": [{"date": "2017-02-30", "dates": [], "text": "「旋风」"}]}'),
])
def test_the_checks_of_the_outputs_find_what_they_look_for(tmp_path, name, text):
    """Each property fails on an output that breaks it, planted (so the
    properties holding on the built examples says something)."""
    (tmp_path / name).write_text(text, encoding='utf-8')
    with pytest.raises((AssertionError, ValueError)):
        check_outputs(tmp_path)


def test_the_properties_hold_on_the_attacks_of_issue_34(make_app, workdir):
    """The property checks are not vacuous: the issue's own attacks."""
    page = ('攻击\n====\n\n'
            '.. raw:: html\n\n   <img src=x onerror=alert(1)>\n\n'
            '.. role:: h(raw)\n   :format: html\n\n'
            '| 「`旋风`_」\\ :h:`<img src=x onerror=alert(2)>`\\ 的效果。\\ :ruling:`20/1/1`\n'
            '| 「`旋风`_」\\ :ruling:`17/3/28 <https://evil.host\\\\@www.db.yugioh-card.com/>`\n\n'
            '`x <//evil.host/y>`__ `y <\\\\evil.host/z>`__\n\n'
            '.. image:: javascript:alert(1)\n')
    build_example(make_app, workdir, page, '# kind\tname\tid\turl\taliases\ncard\t旋风\n')
