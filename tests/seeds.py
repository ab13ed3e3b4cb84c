"""Read the four seed documents the handbook's pages were restored from.

The seeds live in ``../shared/seeds`` (override with ``HANDBOOK_SEEDS``).
Two are reStructuredText whose line breaks were collapsed into spaces; two
are the rendered text of a page, markup lost.  This module extracts from a
seed what the fidelity test compares with the restored page: card names,
dates, ``:ref:`` labels, headings and sentences.

It is also a command-line check for whoever restores a seed::

    python tests/seeds.py 000_4e5c70c99bc92228.txt source/effect-processing.rst

For a reStructuredText seed it checks that the restored page, with its
whitespace collapsed again, is the seed itself (date links rewritten as
``:ruling:`` roles); for a rendered seed, that the restored page's text is
the seed's text, character for character once whitespace is ignored.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path(os.environ.get('HANDBOOK_SEEDS', ROOT.parent / 'shared' / 'seeds'))
#: why the seeds cannot be read here, or None: the tests that need them skip
#: with this reason (a clone of the project alone has no ../shared)
ABSENT = None if SEEDS.is_dir() else f'no seeds at {SEEDS} (HANDBOOK_SEEDS names their folder)'

#: seed file -> restored page (docname) and format
PAGES = {
    '000_4e5c70c99bc92228.txt': ('effect-processing', 'rst'),
    '001_25296ca0500b805e.txt': ('negation', 'rst'),
    '003_42beaac9a4bee6aa.txt': ('effect-types', 'rendered'),
    '004_8de349524d846537.txt': ('face-down-banish', 'rendered'),
}

#: admonition titles of the rendered seeds -> directive that renders them.
#: 注解 is how older Sphinx releases rendered ``.. note::`` in zh_CN.
ADMONITION_TITLES = {'注意': 'attention', '备注': 'note', '注解': 'note', '小技巧': 'tip'}

#: a date as the seeds write it after a ruling: YY/M/D
DATE = r'\d{2}/\d{1,2}/\d{1,2}'
_DATE_RE = re.compile(rf'(?<![\d/]){DATE}(?![\d/])')
#: an anonymous link whose URL was stripped: `17/3/24 `__ or `wiki `__
_STRIPPED_LINK = re.compile(r'(\\ )?`([^`<>]+?) `__(\\ )?')
_CARD_REF = re.compile(r'`([^`]+)`_(?!_)')
_CARD_NAME = re.compile(r'「`([^`]+)`_」')
#: markup the seeds got wrong and the restored pages repair, text unchanged:
#: docutils cannot nest a reference in strong emphasis (it would show the
#: backquotes), so the emphasis is split around the card link
REPAIRS = [
    ('**不能连锁发动「`星尘龙`_」的①效果**', '**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**'),
]
_REF_ROLE = re.compile(r':ref:`([^`<>]+)`')
_UNDERLINE = re.compile(r'^([=\-~^"\'`#*+])\1{2,}$')
#: 「…」 in rendered text that are not card names
NOT_CARDS = {'卡名', '…'}
#: closing navigation line of a rendered page, not content
_FOOTER = re.compile(r'^← .* →$')


def width(text: str) -> int:
    """Display width as docutils measures a title: wide characters count 2."""
    return sum(2 if unicodedata.east_asian_width(c) in 'WF' else 1 for c in text)


def squash(text: str) -> str:
    """Drop all whitespace: the seeds collapsed it, so only characters count."""
    return re.sub(r'\s+', '', text)


@dataclasses.dataclass
class Seed:
    name: str
    docname: str
    format: str
    text: str

    @property
    def cards(self) -> Counter:
        if self.format == 'rst':
            return Counter(_CARD_NAME.findall(self.text))
        found = re.findall(r'「([^「」]+)」', self.text)
        return Counter(n for n in found if n not in NOT_CARDS)

    @property
    def dates(self) -> Counter:
        """Dates after rulings; in rst seeds mostly stripped links, a few bare."""
        if self.format == 'rst':
            return Counter(re.findall(r':ruling:`([^`<]+)`', self.converted()))
        return Counter(_DATE_RE.findall(self.text))

    @property
    def refs(self) -> Counter:
        return Counter(_REF_ROLE.findall(self.text))

    @property
    def headings(self) -> list[str]:
        """Heading titles, as plain text, in order."""
        if self.format == 'rst':
            return [plain_inline(t) for t in _rst_headings(self.text)]
        lines = self.text.split('\n')
        if self.name.startswith('004'):
            return [ln[:-1] for ln in lines if ln.endswith('¶')]
        # 003 shows its headings as short standalone lines without punctuation
        out = []
        for i, ln in enumerate(lines):
            before = lines[i - 1].strip() if i else ''
            after = lines[i + 1].strip() if i + 1 < len(lines) else ''
            s = ln.strip()
            if (s and not before and not after and s == ln
                    and s not in ADMONITION_TITLES
                    and not re.search(r'[。，：；、『「（.•]', s)):
                out.append(s)
        return out

    def converted(self) -> str:
        """The rst seed with stripped date links written as ``:ruling:`` roles
        and other stripped links as their plain text: what a restored page
        collapses back to."""
        def repl(m: re.Match) -> str:
            before, body, after = m.group(1) or '', m.group(2), m.group(3) or ''
            if re.fullmatch(DATE, body):
                return f'{before}:ruling:`{body}`{after}'
            return body
        text = _STRIPPED_LINK.sub(repl, self.text)
        for wrong, right in REPAIRS:
            text = text.replace(wrong, right)
        # a few dates lost their link markup too: 。19/8/17
        return re.sub(rf'(?<=[。）])({DATE})(?= )', r':ruling:`\1`', text)

    def sentences(self) -> list[str]:
        """Every sentence of the seed as plain text, whitespace removed."""
        if self.format == 'rst':
            text = _rst_plain(self.converted())
        else:
            text = '\n'.join(rendered_lines(self.text))
        pieces = re.split(r'(?<=[。！？])|\n|\x00', text)
        return [squash(p) for p in pieces if len(squash(p)) >= 2]


def rendered_lines(text: str) -> list[str]:
    """The content lines of a rendered seed: no ¶, bullets, enumerators,
    admonition titles or footer navigation."""
    out = []
    for ln in text.split('\n'):
        s = ln.strip().removesuffix('¶')
        s = re.sub(r'^(•|\d+\.)\s+', '', s)
        if not s or s in ADMONITION_TITLES or _FOOTER.match(s):
            continue
        out.append(s)
    return out


def plain_inline(rst: str) -> str:
    """Inline markup of a seed as the reader sees it."""
    rst = _STRIPPED_LINK.sub(lambda m: m.group(2), rst)
    rst = re.sub(r':ruling:`([^`]+)`', r'\1', rst)
    rst = _REF_ROLE.sub(r'\1', rst)
    rst = _CARD_REF.sub(r'\1', rst)
    rst = re.sub(r'(?<=\\ )([^\s`\\]+)_(?=\\ )', r'\1', rst)  # a plain name_ reference
    rst = re.sub(r'\*\*(.+?)\*\*', r'\1', rst)
    rst = rst.replace('\\ ', '')
    return rst.strip()


def _rst_headings(text: str) -> list[str]:
    tokens = text.split(' ')
    titles, start = [], 0
    for i, tok in enumerate(tokens):
        if not _UNDERLINE.match(tok):
            continue
        if i + 2 < len(tokens) and tokens[i + 2] == tok and i == start:
            start = i + 1  # overline: the title comes after it
            continue
        # the title is the longest run of tokens before the underline that
        # fits its width and does not cross a structural marker
        best = None
        for j in range(i - 1, start - 1, -1):
            if tokens[j] in ('|', '-') or tokens[j].endswith((':', '：', '。', '`__')):
                break
            candidate = ' '.join(tokens[j:i])
            if width(candidate) > len(tok) + 2:  # some seed underlines are short
                break
            best = candidate
        if best:
            titles.append(best)
        start = i + 1
    return titles


def _rst_plain(text: str) -> str:
    """Plain text of a collapsed rst seed, with a NUL at every block marker."""
    text = re.sub(r'\.\. _[^:]+: ', '\x00', text)
    text = re.sub(r'\.\. \w+:: ', '\x00', text)
    text = re.sub(r'\.\. \[#\] ', '\x00', text)
    text = re.sub(r'\[#\]_', '\x00', text)
    text = re.sub(r'(?:^|(?<= ))([=\-~^])\1{2,}(?= |$)', '\x00', text)
    text = re.sub(r'(?:^|(?<= )|(?<=\x00))[|-] ', '\x00', text)
    return plain_inline(text)


def load(name: str) -> Seed:
    docname, fmt = PAGES[name]
    return Seed(name, docname, fmt, (SEEDS / name).read_text(encoding='utf-8'))


def collapse(text: str) -> str:
    return re.sub(r'\s+', ' ', text).strip()


def check(seed_name: str, page: Path) -> list[str]:
    """Problems with a restored page, for the restorer (empty when faithful)."""
    seed = load(seed_name)
    source = page.read_text(encoding='utf-8')
    problems = []
    if seed.format == 'rst':
        # title adornments may be lengthened where the seed's were too short
        adornment = re.compile(r'(?<!\S)([=\-~^])\1{2,}(?!\S)')
        want = adornment.sub(r'\1\1\1', collapse(seed.converted()))
        got = adornment.sub(r'\1\1\1', collapse(source))
        if want != got:
            i = next((k for k, (a, b) in enumerate(zip(want, got)) if a != b),
                     min(len(want), len(got)))
            problems.append(f'differs at character {i}:\n seed: …{want[max(0, i-80):i+80]}\n page: …{got[max(0, i-80):i+80]}')
    text, messages = _docutils_text(source)
    problems.extend(messages)
    if seed.format == 'rendered':
        want = squash(''.join(rendered_lines(seed.text)))
        got = squash(text)
        if want != got:
            i = next((k for k, (a, b) in enumerate(zip(want, got)) if a != b),
                     min(len(want), len(got)))
            problems.append(f'text differs at character {i}:\n seed: …{want[max(0, i-60):i+60]}\n page: …{got[max(0, i-60):i+60]}')
    return problems


def _docutils_text(source: str) -> tuple[str, list[str]]:
    """Text of a page parsed by plain docutils, admonition titles left out,
    and the markup problems docutils reported (card links are not resolved
    here, so unknown target names are not reported)."""
    from docutils import nodes
    from docutils.core import publish_doctree
    from docutils.parsers.rst import roles

    def text_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        m = re.match(r'^(.*?)\s*(<[^>]*>)?$', text, re.S)
        return [nodes.inline(rawtext, m.group(1))], []

    roles.register_local_role('ruling', text_role)
    roles.register_local_role('ref', text_role)
    roles.register_local_role('strike', text_role)
    doctree = publish_doctree(source, settings_overrides={
        'report_level': 5, 'halt_level': 5, 'language_code': 'zh_cn'})
    for node in list(doctree.findall(nodes.title)):
        if isinstance(node.parent, nodes.Admonition):
            node.parent.remove(node)
    messages = []
    for node in list(doctree.findall(nodes.system_message)):
        text = node.astext()
        if node['level'] >= 2 and 'Unknown target name' not in text:
            messages.append(f"line {node.get('line')}: {text}")
        node.parent.remove(node)
    for node in list(doctree.findall(nodes.problematic)):
        # an unresolved card reference: keep the name the reader sees
        node['ids'] = []
        node.replace_self(nodes.Text(plain_inline(node.astext())))
    return doctree.astext(), messages


if __name__ == '__main__':
    seed_name, page = sys.argv[1], Path(sys.argv[2])
    found = check(seed_name, page)
    for p in found:
        print(p)
    if not found:
        print('ok: the page is faithful to the seed')
    sys.exit(1 if found else 0)
