"""Translations: catalogs, translated builds that keep card links and rulings,
problems at the .po line, the language switcher, the zh_TW edition.

The test root ``intl`` is built in Traditional Chinese from its own catalogs
(``locale/zh_TW/LC_MESSAGES/*.po``, compiled by the build, as in Sphinx's own
i18n tests): ``index.po`` translates correctly (cards in either spelling, in
another order, links to sections, a planned section, a ruling with its FAQ),
each message of ``errors.po`` has one mistake.  The real handbook is extracted
with ``make gettext`` and built with ``make html LANGUAGE=zh_TW``; its zh_TW
catalogs are checked message by message.
"""

from __future__ import annotations

import json
import pickle
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from docutils import nodes
from sphinx import addnodes
from sphinx.util.nodes import NodeMatcher

from handbook.cards import registry as card_registry
from conftest import ROOT
from helpers import (
    assert_no_warnings,
    build_once,
    html,
    links,
    make_command,
    sphinxopts,
    warnings,
)

sys.path.insert(0, str(ROOT / 'tools'))
import intl_stat  # noqa: E402
import zh_tw  # noqa: E402

CYCLONE = 'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E'  # 旋风
DECREE = 'https://ygocdb.com/card/name/%E7%8E%8B%E5%AE%AB%E7%9A%84%E9%93%81%E5%A3%81'  # 王宫的铁壁
SOLEMN = 'https://ygocdb.com/card/name/%E7%A5%9E%E4%B9%8B%E5%AE%A3%E5%91%8A'  # 神之宣告
PO = 'locale/zh_TW/LC_MESSAGES'


# -- a translated build (test root "intl") ----------------------------------------------


@pytest.mark.sphinx('html', testroot='intl')
@pytest.mark.test_params(shared_result='translations-intl')
def test_translated_messages_keep_card_links_and_rulings(app):
    app.build()
    # the zh_TW name (alias) and the original name link the same card, in any order
    assert links(app) == [
        ('card', CYCLONE, '旋風'), ('card', DECREE, '王宫的铁壁'),
        ('card', SOLEMN, '神之宣告'), ('card', DECREE, '王宮的鐵壁'), ('card', CYCLONE, '旋風'),
        ('card', SOLEMN, '神之宣告'),  # an untranslated line
    ]
    page = html(app)
    assert '的順序，見「<a class="reference internal" href="#同时处理">同時處理</a>」' in page
    # the ruling keeps its FAQ link and its permalink (the same id as in zh_CN)
    assert re.search('<(span|div) class="(line )?ruling-line" id="ruling-2017-03-24-faq19691-旋风">「',
                     page)
    assert ('<a class="ruling reference external" href="https://www.db.yugioh-card.com/'
            'yugiohdb/faq_search.action?ope=5&amp;fid=19691&amp;request_locale=ja">17/3/24</a>'
            in page)
    doctree = app.env.get_doctree('index')
    ruling = next(n for n in doctree.findall() if 'ruling_text' in getattr(n, 'attributes', {}))
    assert (ruling['ruling_date'], ruling['ruling_faq']) == ('2017-03-24', '19691')
    # links to the page's sections: by the translated title, by a label shown translated
    assert '參見「<a class="reference internal" href="#同时处理">同時處理</a>」' in page
    assert '按<a class="reference internal" href="#多步效果的适用">多步效果的適用</a>來決定。' in page
    # texts the extensions generate, from the handbook catalog; the planned
    # section's label by its title
    assert 'data-permalink="連結到此裁定"' in page  # the readers' tools' text
    assert ('<span class="planned"><span class="xref std std-ref">調整中</span>'
            '<span class="planned-label">（待編寫）</span></span>') in page
    # an escaped list marker: the line is translated
    assert '<div class="line">1. 入連鎖的效果。</div>' in page
    # project and html_title, through the root page's catalog
    assert '<title>測試手冊</title>' in page
    assert app.config.project == '測試手冊'


@pytest.mark.sphinx('html', testroot='intl')
@pytest.mark.test_params(shared_result='translations-intl')
def test_translation_mistakes_are_reported_at_their_po_line(app):
    app.build()
    assert warnings(app) == [
        f'{PO}/errors.po:12: WARNING: the translation does not keep the ruling dates of the '
        'original: it has 「17/3/25」, the original 「17/3/24」; copy each :ruling: reference '
        'as it is [handbook.i18n]',
        f'{PO}/errors.po:23: WARNING: the translation does not keep the card names and links '
        'of the original: it has none, the original 「旋风」; keep each reference; a card may '
        "be written in the translation's language (its alias in cards.tsv) [handbook.i18n]",
        f'{PO}/errors.po:27: WARNING: this translation is not used: parsed on its own it is '
        'not a line of text (a line that starts like "1. ", "a) " or "- " is a list); '
        'escape the marker, as in "1\\. " [handbook.i18n]',
        # the typo is on the msgstr's third line; the suggestion is in the page's language
        f'{PO}/errors.po:19: ERROR: unknown card name 「神之宣吿」: did you mean 「神之宣告」? '
        'If it is a new card, add a row to cards.tsv. [handbook.card]',
    ]


@pytest.mark.sphinx('html', testroot='intl')
@pytest.mark.test_params(shared_result='translations-intl')
def test_catalogs_are_compiled_into_the_build(app):
    app.build()
    assert not list(Path(app.srcdir, 'locale').rglob('*.mo'))  # nothing written into locale/
    compiled = sorted(p.name for p in (Path(app.doctreedir) / 'locale').rglob('*.mo'))
    # the root's own, and the theme's, which its catalogs lack: the toolchain's
    assert compiled == ['errors.mo', 'handbook.mo', 'index.mo', 'theme.mo']


@pytest.mark.sphinx('html', testroot='intl',
                    confoverrides={'language': 'zh_CN'})
@pytest.mark.test_params(shared_result='translations-intl-zh-cn')
def test_the_source_language_is_not_translated(app):
    app.build()
    assert_no_warnings(app)
    page = html(app)
    assert '参见「<a class="reference internal" href="#同时处理">同时处理</a>」' in page
    assert '<span class="planned-label">（待编写）</span>' in page


# -- the language switcher ----------------------------------------------------------------


def switcher(page: str) -> list[tuple[str, str, str]]:
    """``(href, hreflang, label)`` of each entry of the language switcher;
    href is ``'current'`` for the page's own language."""
    nav = re.search(r'<nav class="sidebar-languages"[^>]*>(.*?)</nav>', page, re.S)[1]
    entries = re.findall(r'<a href="([^"]*)" hreflang="([^"]*)"[^>]*>([^<]*)</a>'
                         r'|<span class="current-language" lang="([^"]*)"[^>]*>([^<]*)</span>', nav)
    return [(href, tag, label) if href else ('current', tag2, label2)
            for href, tag, label, tag2, label2 in entries]


@pytest.mark.sphinx('html', testroot='intl')
@pytest.mark.test_params(shared_result='translations-intl')
def test_switcher_links_to_the_same_page_in_the_root_language(app):
    app.build()
    assert switcher(html(app)) == [('../index.html', 'zh-CN', '简体中文'),
                                   ('current', 'zh-TW', '繁體中文')]
    assert switcher(html(app, 'sub/nested'))[0] == ('../../sub/nested.html', 'zh-CN', '简体中文')
    assert 'aria-label="語言"' in html(app)  # the handbook catalog


@pytest.mark.sphinx('html', testroot='intl', freshenv=True,
                    confoverrides={'handbook_switchers': False})
def test_a_build_of_one_language_links_to_no_other(app):
    """The root's conf.py loads the translations without the editions: the
    switch is theirs as well (make html: handbook.core.switchers)."""
    app.build()
    assert 'sidebar-languages' not in html(app)
    assert 'hreflang=' not in html(app, 'sub/nested')


@pytest.mark.sphinx('html', testroot='intl',
                    confoverrides={'language': 'zh_CN'})
@pytest.mark.test_params(shared_result='translations-intl-zh-cn')
def test_switcher_links_from_the_root_into_the_language_folders(app):
    app.build()
    assert switcher(html(app)) == [('current', 'zh-CN', '简体中文'),
                                   ('zh_TW/index.html', 'zh-TW', '繁體中文')]
    assert switcher(html(app, 'sub/nested'))[1] == ('../zh_TW/sub/nested.html', 'zh-TW',
                                                    '繁體中文')


@pytest.mark.sphinx('html', testroot='intl', freshenv=True,
                    confoverrides={'html_baseurl': 'https://example.org/handbook/'})
def test_a_translation_is_published_in_its_folder(app):
    assert app.config.html_baseurl == 'https://example.org/handbook/zh_TW/'


@pytest.mark.sphinx('html', testroot='intl', freshenv=True,
                    confoverrides={'html_baseurl': 'https://example.org/zh-tw/'})
def test_a_base_url_with_the_language_folder_is_kept(app):
    assert app.config.html_baseurl == 'https://example.org/zh-tw/'


# -- incremental builds ---------------------------------------------------------------------


@pytest.mark.sphinx('html', testroot='intl', srcdir='intl-catalog-edits')
def test_editing_a_catalog_rereads_its_page_only(app, make_app):
    app.build()
    po = Path(app.srcdir, PO)

    def rebuild() -> tuple[list[str], list[str]]:
        """Build again in a new process, as in real life (Sphinx and gettext
        keep the catalogs they loaded per process): the pages read, the warnings."""
        script = f"""
import json, runpy, sys
sys.path[:0] = [{str(ROOT / '_ext')!r}, {str(ROOT / 'tests')!r}]
from helpers import with_speed
from sphinx.application import Sphinx
srcdir = {str(app.srcdir)!r}
extensions = with_speed(list(runpy.run_path(srcdir + '/conf.py').get('extensions', [])))
again = Sphinx(srcdir, srcdir, {str(app.outdir)!r}, {str(app.doctreedir)!r}, 'html',
               confoverrides={{'extensions': extensions}}, status=None, warning=sys.stderr)
read = []
again.connect('env-before-read-docs', lambda app, env, docs: read.extend(docs))
again.build()
print(json.dumps(sorted(read)))
"""
        run = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                             timeout=300, check=True)
        return json.loads(run.stdout), run.stderr.splitlines()

    errors = po / 'errors.po'
    errors.write_text(errors.read_text(encoding='utf-8').replace('神之宣吿', '神之宣告'),
                      encoding='utf-8')
    read, warned = rebuild()
    assert read == ['errors']
    assert not any('神之宣吿' in w for w in warned)

    handbook = po / 'handbook.po'  # generated texts can be on any page
    handbook.write_text(handbook.read_text(encoding='utf-8').replace('連結到此', '鏈結到此'),
                        encoding='utf-8')
    read, _warned = rebuild()
    assert read == ['errors', 'index', 'sub/nested']
    assert 'data-permalink="鏈結到此裁定"' in html(app)  # the readers' tools' text

    errors.unlink()  # its compiled catalog must not translate any more
    read, _warned = rebuild()
    assert read == ['errors']
    assert '<h1>错误' in html(app, 'errors')


@pytest.mark.parametrize(('broken', 'report'), [
    ('msgstr "錯誤"\nnonsense',
     "8: WARNING: cannot read this catalog: Unknown or misformatted keyword ('nonsense'); fix "
     'the entry or run make intl-update [handbook.i18n]'),
    # no closing quote: Babel reads it without its last character, and the page
    # showed the texts cut and run together, the build "succeeded" (an adopter's
    # round trip)
    ('msgstr "錯誤',
     '7: WARNING: cannot read this catalog: a string is not closed: end it with " (its page '
     'is built untranslated until then) [handbook.i18n]'),
])
def test_an_unreadable_catalog_is_reported_at_its_line(make_app, rootdir, tmp_path, broken,
                                                       report):
    srcdir = tmp_path / 'intl'
    shutil.copytree(rootdir / 'test-intl', srcdir)
    errors = Path(srcdir, PO, 'errors.po')
    text = errors.read_text(encoding='utf-8')
    errors.write_text(text.replace('msgstr "錯誤"', broken), encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert [w for w in warnings(app) if 'errors.po' in w] == [f'{PO}/errors.po:{report}']
    assert '<h1>错误' in html(app, 'errors')  # the page is built, untranslated


# -- the real handbook ----------------------------------------------------------------------


@pytest.fixture(scope='module')
def gettext(tmp_path_factory) -> Path:
    """The real handbook's catalogs, made once by make gettext."""
    run = build_once(tmp_path_factory, 'handbook-gettext', lambda out: make_command(
        'gettext', f'BUILDDIR={out}', sphinxopts()))
    assert (run.returncode, run.stderr) == (0, '')
    return run.out / 'gettext'


def pages() -> list[str]:
    source = ROOT / 'source'
    return sorted(p.relative_to(source).with_suffix('').as_posix() for p in source.rglob('*.rst'))


def catalog(path: Path):
    with path.open('rb') as f:
        return read_po(f)


def test_gettext_extracts_a_catalog_for_every_page(gettext):
    for page in pages():
        messages = [m for m in catalog(gettext / f'{page}.pot') if m.id]
        assert messages, page
    generated = {m.id for m in catalog(gettext / 'handbook.pot') if m.id}
    assert {'在卡片数据库中查看「{name}」', '（待编写）', '语言'} <= generated


def test_the_zh_tw_catalogs_are_complete(gettext):
    """Every message of every page has a zh_TW translation that builds use
    (else: make intl-zh_TW)."""
    for pot in sorted(gettext.glob('*.pot')):
        wanted = {m.id for m in catalog(pot) if m.id}
        po = catalog(ROOT / 'locale' / 'zh_TW' / 'LC_MESSAGES' / f'{pot.stem}.po')
        used = {m.id for m in po if m.id and m.string and not m.fuzzy}
        assert wanted - used == set(), f'{pot.stem}: run make intl-zh_TW'


@pytest.fixture
def zh_tw_site(handbook_zh_tw):
    """The real handbook, built once as `make html LANGUAGE=zh_TW` builds it (conftest.py)."""
    return handbook_zh_tw.out, handbook_zh_tw


def test_zh_tw_site_builds_without_warnings(zh_tw_site):
    _, run = zh_tw_site
    assert run.stderr == ''
    assert run.returncode == 0


def test_zh_tw_site_reads_in_traditional_chinese(zh_tw_site):
    out, _ = zh_tw_site
    site = out / 'html' / 'zh_TW'
    page = (site / 'negation.html').read_text(encoding='utf-8')
    assert '<title>無效 - 遊戲王 OCG 裁定手冊</title>' in page
    assert re.search(r'<h1>無效<a class="headerlink"', page)
    # make html builds one language: no link to the root language's page, which
    # need not be built (make html-all links them: test_editions checks the Makefile)
    assert 'hreflang="zh-CN"' not in page
    # the 404 page too (a reader's round trip: it was in Simplified characters)
    missing = (site / '404.html').read_text(encoding='utf-8')
    assert '<title>找不到頁面 - 遊戲王 OCG 裁定手冊</title>' in missing
    assert '<h1>找不到頁面</h1>' in missing and 'placeholder="搜尋卡名或規則"' in missing
    assert '这个地址' not in missing and '這個地址沒有頁面' in missing
    # every message of every page was translated (Sphinx marks a toctree's
    # translated caption untranslated: its flag is not looked at)
    for path in sorted((out / 'doctrees-zh_TW').glob('**/*.doctree')):
        doctree = pickle.loads(path.read_bytes())
        untranslated = [node.astext() for node in
                        NodeMatcher(nodes.Element, translated=False).findall(doctree)
                        if not isinstance(node, addnodes.toctree)]
        assert untranslated == [], path.stem


# -- the zh_TW conversion -----------------------------------------------------------------

#: markup, found independently of tools/zh_tw.py: roles, literals, references
#: (quoted or simple), footnote and substitution references
SPAN = re.compile(r'''
    :[\w.+-]+(?::[\w.+-]+)*:`[^`]*`
  | ``.+?``
  | `[^`]*`__?
  | (?<![\w.:+-])\w+(?:[-.:+]\w+)*_(?![\w_])
  | \[[^\]\s]*\]_
  | \|[^|\s][^|]*\|
''', re.X)
DATE = re.compile(r'\d{1,2}/\d{1,2}/\d{1,2}')
CJK = re.compile(r'[\u3400-\u9fff\uf900-\ufaff]')


@pytest.fixture(scope='module')
def convert():
    return zh_tw.opencc_converter()


@pytest.fixture(scope='module')
def registry():
    return card_registry.load(ROOT / 'cards.tsv')


def same_markup(before: str, after: str, convert, registry, planned) -> bool:
    """Is *after* the markup span *before* with only text converted?"""
    if before == after:
        return True
    role = re.fullmatch(r':([\w.+-]+):`(.*)`', before, re.S)
    if role:
        name, text = role.groups()
        if name == 'ref' and text in planned:
            return after == f':ref:`{convert(text)} <{text}>`'
        # (its plain card names as links are: tools/zh_tw.py's _convert_prose)
        return name in zh_tw.PROSE_ROLES and after in {
            f':{name}:`{convert(text)}`',
            f':{name}:`{zh_tw._convert_prose(text, convert, registry)}`'}
    name = re.fullmatch(r'`([^`]*)`_|([^`]*)_', before)
    if not name or re.search(r'\s<[^<>]*>$', name[1] or ''):
        return False  # `text <target>`_ is kept as it is
    name = name[1] or name[2]
    card = registry.lookup(name)
    if card is None:  # a label of the page: shown converted, target kept
        return after == f'`{convert(name)} <{name}_>`__'
    new = re.fullmatch(r'`([^`]*)`_|([^`]*)_', after)
    new = new and (new[1] or new[2])
    return bool(new) and registry.lookup(new) is card and \
        new in {convert(name), card.name_in('zh_TW'), name}


def test_zh_tw_conversion_keeps_markup_cards_and_dates(convert, registry):
    """Over the real catalogs: each machine-converted message has the markup
    of its msgid, span for span; only card names (resolving to the same card),
    labels' shown text and prose is converted; every date is kept; the text
    between spans is the conversion of the msgid's."""
    planned = zh_tw.planned_sections(ROOT / 'conf.py')
    checked = Counter()
    for po in sorted((ROOT / 'locale' / 'zh_TW' / 'LC_MESSAGES').glob('*.po')):
        for message in catalog(po):
            if not message.id or zh_tw.FLAG not in message.flags:
                continue
            msgid, msgstr = message.id, message.string
            msgstr = re.sub(r'^(\(?\w+)\\([.)])|^\\([-*+])', r'\1\2\3', msgstr)  # list marker
            before, after = SPAN.findall(msgid), SPAN.findall(msgstr)
            assert len(before) == len(after), (po.name, msgid, msgstr)
            for a, b in zip(before, after, strict=True):
                assert same_markup(a, b, convert, registry, planned), (po.name, a, b)
            assert DATE.findall(msgid) == DATE.findall(message.string), (po.name, msgid)
            # the text around the spans: converted, nothing else changed
            text_a, text_b = SPAN.split(msgid), SPAN.split(msgstr)
            assert [CJK.sub('', t) for t in text_a] == [CJK.sub('', t) for t in text_b]
            assert all(len(a) == len(b) for a, b in zip(text_a, text_b, strict=True))
            checked['messages'] += 1
            checked['spans'] += len(before)
            checked['cards'] += sum(registry.lookup(re.sub(r'^`|`?_$', '', a)) is not None
                                    for a in before)
    assert checked['messages'] > 1000 and checked['cards'] > 1000, checked


def test_converting_a_message(convert, registry):
    planned = frozenset({'调整中'})
    text = ('「`旋风`_」发动。\\ :ruling:`17/3/24 <faq:19691>` **不能连锁** *强调* ``代码`` [#]_ '
            ':strike:`不能发动` :ref:`调整中` :ref:`○○召唤无效` :ref:`显示 <○○召唤无效>` '
            '按\\ 多步效果的适用_\\ 来 `18/1/2 <https://ocg-rule.readthedocs.io/a>`__')
    assert zh_tw.convert_message(text, convert, registry, planned) == (
        '「`旋風`_」發動。\\ :ruling:`17/3/24 <faq:19691>` **不能連鎖** *強調* ``代码`` [#]_ '
        ':strike:`不能發動` :ref:`調整中 <调整中>` :ref:`○○召唤无效` :ref:`顯示 <○○召唤无效>` '
        '按\\ `多步效果的適用 <多步效果的适用_>`__\\ 來 `18/1/2 <https://ocg-rule.readthedocs.io/a>`__')
    assert zh_tw.convert_message('1. 入连锁的效果。', convert, registry) == '1\\. 入連鎖的效果。'
    assert zh_tw.convert_message('- 一项', convert, registry) == '\\- 一項'


def test_struck_texts_card_names_are_converted_as_links_are(convert, tmp_path):
    """Struck text writes card names plain, and the strike role links them:
    converted with the rest, 「死者蘇生」 was no card's name and failed the
    zh_TW build (an adopter's round trip).  Each is converted as a link's
    name is: kept, or its zh_TW alias; the rest of the text converted."""
    path = tmp_path / 'cards.tsv'
    path.write_text('card\t死者苏生\ncard\t来自墓场的呼声\ncard\t真红眼黑龙\t\t\tzh_TW=真紅眼黑龍\n',
                    encoding='utf-8')
    registry = card_registry.load(path)
    text = ':strike:`「死者苏生」特殊召唤的怪兽受「来自墓场的呼声」和「真红眼黑龙」的效果影响，调整中。`'
    assert zh_tw.convert_message(text, convert, registry) == (
        ':strike:`「死者苏生」特殊召喚的怪獸受「来自墓场的呼声」和「真紅眼黑龍」的效果影響，調整中。`')


@pytest.mark.parametrize('translated, told', [
    (':strike:`「旋風」的效果。`', []),
    (':strike:`效果。`', ['the card names and links'])])
def test_struck_texts_card_names_are_compared_as_card_names(make_app, rootdir, tmp_path,
                                                             translated, told):
    """A translated struck line: its plain card names, which the strike role
    links, are card names in any spelling (the zh_TW alias), as links are;
    one left out is said as a card name, not as a :ref: target (an
    adopter's round trip: "does not keep the :ref: targets")."""
    srcdir = tmp_path / 'intl'
    shutil.copytree(rootdir / 'test-intl', srcdir)
    with (srcdir / 'index.rst').open('a', encoding='utf-8') as page:
        page.write('| :strike:`「旋风」的效果。`\n')
    with (srcdir / 'locale' / 'zh_TW' / 'LC_MESSAGES' / 'index.po').open('a', encoding='utf-8') as po:
        po.write(f'\nmsgid ":strike:`「旋风」的效果。`"\nmsgstr "{translated}"\n')
    conf = srcdir / 'conf.py'
    conf.write_text(conf.read_text(encoding='utf-8').replace(
        "'handbook.rulings.dates',", "'handbook.rulings.dates', 'handbook.rulings.strike',"),
        encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    found = [w for w in warnings(app) if 'index.po' in w and 'does not keep' in w]
    assert [re.search(r'does not keep (.*?) of the original', w)[1] for w in found] == told


def test_a_card_whose_conversion_names_another_card_keeps_its_name(convert, tmp_path):
    # 强制脱出装置 converts to the zh_TW alias of the row 強制脱出装置, another card
    path = tmp_path / 'cards.tsv'
    path.write_text('card\t強制脱出装置\t\t\tzh_TW=強制脫出裝置\ncard\t强制脱出装置\n',
                    encoding='utf-8')
    registry = card_registry.load(path)
    assert registry.lookup(convert('强制脱出装置')) is not registry.lookup('强制脱出装置')
    assert zh_tw.card_name('强制脱出装置', convert, registry) == '强制脱出装置'


REGISTRY = ('# kind\tname\tid\turl\taliases\n'
            'card\t旋风\n'
            'card\t王宫的铁壁\t4711\t\ten=Royal Decree\n'
            'card\t真红眼黑龙\t\t\tzh_TW=真紅眼黑龍\n'
            'card\t神之宣告\n'
            'card\t強制脱出装置\n'
            'card\t强制脱出装置\n'
            'series\t星骑士\n')


def test_refreshing_the_zh_tw_aliases(tmp_path, convert):
    path = tmp_path / 'cards.tsv'
    path.write_text(REGISTRY, encoding='utf-8')
    added, problems = zh_tw.refresh_aliases(path, convert)
    assert path.read_text(encoding='utf-8') == (
        '# kind\tname\tid\turl\taliases\n'
        'card\t旋风\t\t\tzh_TW=旋風\n'
        'card\t王宫的铁壁\t4711\t\ten=Royal Decree;zh_TW=王宮的鐵壁\n'
        'card\t真红眼黑龙\t\t\tzh_TW=真紅眼黑龍\n'   # an alias already there is kept
        'card\t神之宣告\n'                            # the conversion is the name itself
        'card\t強制脱出装置\t\t\tzh_TW=強制脫出裝置\n'
        'card\t强制脱出装置\n'                        # would name the row above
        'series\t星骑士\t\t\tzh_TW=星騎士\n')
    assert added == 4
    assert problems == [f'{path}:7: 「强制脱出装置」 converts to 「強制脫出裝置」, which names '
                        '「強制脱出装置」 (line 6); no zh_TW alias added: write the card\'s '
                        'Traditional name by hand']
    assert zh_tw.refresh_aliases(path, convert)[0] == 0  # nothing left to add
    assert card_registry.load(path).problems == []



def test_a_link_file_gets_no_alias_and_make_intl_zh_tw_says_so(tmp_path, convert, capsys):
    """A legacy link file has no alias column: nothing is written into it,
    and the command says what that means instead of "0 aliases added"."""
    links = tmp_path / 'links.rst'
    text = '.. _`旋风`: https://ygocdb.com/card/name/旋风\n'
    links.write_text(text, encoding='utf-8')
    assert zh_tw.refresh_aliases(links, convert) == (0, [])
    assert links.read_text(encoding='utf-8') == text
    assert zh_tw.registry_rows(links) == 0
    assert zh_tw.registry_rows(Path(ROOT, 'cards.tsv')) > 100
    locale = tmp_path / 'locale' / 'zh_TW' / 'LC_MESSAGES'
    locale.mkdir(parents=True)
    (locale / 'index.po').write_text('msgid ""\nmsgstr ""\n"Language: zh_TW\\n"\n',
                                     encoding='utf-8')
    assert zh_tw.main(['--locale-dir', str(tmp_path / 'locale'), '--registry', str(links),
                       '--srcdir', str(tmp_path), '--conf', str(tmp_path / 'conf.py')]) == 0
    out = capsys.readouterr().out
    assert f'{links}: a link file (.. _`名`: URL) has no alias column' in out
    assert 'aliases added' not in out

CATALOG = '''msgid ""
msgstr ""
"Language: zh_TW\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "无效"
msgstr ""

msgid "前言"
msgstr "前言（人工翻譯）"

#, opencc
msgid "连锁"
msgstr "舊的轉換"

#, fuzzy
msgid "发动"
msgstr "發動了"
'''


def test_filling_a_catalog_converts_what_no_one_translated(tmp_path, convert, registry):
    po = tmp_path / 'page.po'
    po.write_text(CATALOG, encoding='utf-8')
    counts = zh_tw.fill_catalog(po, convert, registry)
    assert (counts['converted'], counts['changed'], counts['reviewed']) == (3, 3, 1)
    messages = {m.id: (m.string, sorted(m.flags)) for m in catalog(po) if m.id}
    assert messages == {
        '无效': ('無效', ['opencc']),                  # untranslated
        '前言': ('前言（人工翻譯）', []),               # reviewed by hand: kept
        '连锁': ('連鎖', ['opencc']),                  # machine output: converted again
        '发动': ('發動', ['opencc']),                  # fuzzy (the source changed)
    }
    # a translation by hand whose original changed: kept above it, for its review
    # (an adopter's round trip: it was replaced without a word)
    assert counts['hand'] == 1
    assert [m.user_comments for m in catalog(po) if m.id == '发动'] == [
        ['by hand, before the original changed: 發動了']]
    before = po.read_bytes()
    again = zh_tw.fill_catalog(po, convert, registry)
    assert (again['changed'], again['files changed']) == (0, 0)
    assert po.read_bytes() == before


def test_intl_stat_counts_what_builds_use(tmp_path, capsys):
    folder = tmp_path / 'zh_TW' / 'LC_MESSAGES'
    folder.mkdir(parents=True)
    (folder / 'page.po').write_text(CATALOG, encoding='utf-8')
    assert intl_stat.main(['--locale-dir', str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ['zh_TW', 'page', '50.0%', '4', '2', '1', '1', '1']
    assert lines[2].split() == ['zh_TW', '(all)', '50.0%', '4', '2', '1', '1', '1']


def test_a_catalog_written_by_hand_is_left_as_written(tmp_path, convert, registry):
    """A catalog with nothing to convert (theme.po, every message reviewed)
    keeps its bytes: make intl-zh_TW rewrote its header in Babel's form."""
    po = tmp_path / 'theme.po'
    po.write_text('# written by hand\nmsgid ""\nmsgstr ""\n"Language: zh_TW\\n"\n'
                  '"Content-Type: text/plain; charset=utf-8\\n"\n\n'
                  '#. page.html\nmsgid "Next"\nmsgstr "下一頁"\n', encoding='utf-8')
    before = po.read_bytes()
    counts = zh_tw.fill_catalog(po, convert, registry)
    assert (counts['reviewed'], counts['changed'], counts['files changed']) == (1, 0, 0)
    assert po.read_bytes() == before


@pytest.mark.sphinx('html', testroot='intl', srcdir='intl-no-catalogs', freshenv=True,
                    confoverrides={'language': 'zh_tw'})
def test_a_translated_build_without_catalogs_of_its_pages_is_a_warning(app):
    """``make html LANGUAGE=zh_tw`` (or a locale_dir mistyped): an edition
    built untranslated, "build succeeded" (an adopter's round trip)."""
    app.build()
    assert [w for w in warnings(app) if 'no catalogs' in w] == [
        "conf.py:1: WARNING: the pages have no catalogs of the language 'zh_tw' in locale (it "
        'has those of zh_TW), so this edition is not translated: write LANGUAGE=zh_TW '
        '[handbook.i18n]']


def test_a_link_dropped_by_a_translation_is_said_with_its_url():
    """"does not keep the URLs … the original 「21/1/6」": the link's text, not
    its URL (an adopter's round trip)."""
    from handbook.translations.catalogs import _listing

    assert _listing([('https://yugioh-wiki.net/x', '21/1/6')], 'uri') == \
        '「21/1/6」 (https://yugioh-wiki.net/x)'
    assert _listing([(('card', '旋风'), '旋风')], 'ref') == '「旋风」'
    assert _listing([], 'uri') == 'none'


def test_a_catalog_with_an_unclosed_string_stops_the_update_before_it_is_cut(tmp_path, capsys):
    """make intl-zh_TW rewrote ``msgstr "同時處理（手譯`` as ``"同時處理（手譯"``,
    its last character gone, without a word (a round trip)."""
    import po_strings

    po = tmp_path / 'zh_TW' / 'LC_MESSAGES' / 'chapter.po'
    po.parent.mkdir(parents=True)
    po.write_text('msgid "同时处理"\nmsgstr "同時處理（手譯\n', encoding='utf-8')
    assert po_strings.main([str(tmp_path)]) == 1
    assert capsys.readouterr().err == (f'{po}:2: a string is not closed: end it with ", then run '
                                       'this again (the catalogs are left as they are)\n')
    po.write_text('msgid "同时处理"\nmsgstr "同時處理（手譯）"\n', encoding='utf-8')
    assert po_strings.main([str(tmp_path)]) == 0
