"""make preview, make linkcheck-changed and make intl-zh_TW use the registry
(and settings) a build of the same SOURCEDIR/CONFDIR uses: CARDS= when given,
else the handbook's ``handbook.toml``, else conf.py's (``cards.tsv``).

Fast and offline: ``make -n`` prints the commands without running them, and
the link checker only lists (``--list``) what it would request.  Nothing
needs ``../shared``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / 'tools'


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding='utf-8')


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """Another handbook: its pages in source/, its settings file naming its
    own registry (links.tsv, beside source/) and FAQ address."""
    root = tmp_path / 'other'
    write(root / 'source' / 'index.rst', '标题\n====\n\n「`旋风`_」。\n')
    write(root / 'source' / 'handbook.toml',
          "cards = '../links.tsv'\nfaq_url = 'https://faq.example/q?fid={id}'\n")
    write(root / 'links.tsv', '# kind\tname\tid\turl\taliases\ncard\t旋风\n')
    return root


def make_n(*args: str) -> str:
    """The commands make would run, printed, not run."""
    done = subprocess.run(['make', '-n', '-C', str(ROOT), *args], capture_output=True,
                          text=True, encoding='utf-8', timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def watched(out: str) -> tuple[list[str], list[str]]:
    """make preview's watched folders and ignored patterns."""
    line = out.replace('\\\n', ' ')
    return (re.findall(r"--watch '?([^' ]+)'?", line), re.findall(r"--re-ignore '([^']+)'", line))


def test_preview_watches_the_handbooks_registry(other):
    folders, ignored = watched(make_n('preview', f'SOURCEDIR={other / "source"}'))
    # (in the order of their paths: the clone's may come first)
    assert sorted(folders) == sorted([str(other), str(ROOT)])
    assert sorted(ignored) == sorted([
        f'^{re.escape(str(other))}/(?!links\\.tsv$|source(?:/|$))',
        f'^{re.escape(str(ROOT))}/(?!conf\\.py$|locale(?:/|$)|_ext(?:/|$)|_static(?:/|$))'])


def test_preview_watches_cards_when_given_and_this_handbooks_by_default(other, tmp_path):
    given = tmp_path / 'given.tsv'
    given.write_text('card\t黑洞\n', encoding='utf-8')
    folders, ignored = watched(make_n('preview', f'SOURCEDIR={other / "source"}',
                                      f'CARDS={given}'))
    assert sorted(folders) == sorted([str(tmp_path), str(ROOT)])
    assert f'^{re.escape(str(tmp_path))}/(?!given\\.tsv$|other/source(?:/|$))' in ignored
    # this handbook: source/handbook.toml names ../cards.tsv
    assert watched(make_n('preview')) == ([str(ROOT)], [
        f'^{re.escape(str(ROOT))}/(?!conf\\.py$|cards\\.tsv$|locale(?:/|$)|_ext(?:/|$)|_static(?:/|$)'
        '|source(?:/|$))'])


def test_what_preview_ignores_is_all_but_what_it_watches(tmp_path):
    """sphinx-autobuild watched the registry and conf.py as files: a save
    that renames a new file over the old (vim, VS Code, sed -i) ended the
    watch at the first save (a preview's round trip).  Their folder is
    watched; the rest of it ignored, but for the other paths watched."""
    preview_watch = load('preview_watch')
    (tmp_path / 'source').mkdir()
    (tmp_path / '_ext').mkdir()
    args = preview_watch.arguments([tmp_path / 'conf.py', tmp_path / 'cards.tsv'],
                                   [tmp_path / '_ext', tmp_path / 'locale'], tmp_path / 'source')
    assert args[:2] == ['--watch', str(tmp_path)] and args[2] == '--re-ignore'
    ignored = re.compile(args[3])
    for path in ('cards.tsv.tmp', '.git/index', '_build/html/index.html', 'tests/x.py',
                 'source.bak', 'cards.tsv~'):
        assert ignored.search(f'{tmp_path}/{path}'), path
    for path in ('cards.tsv', 'conf.py', 'source/index.rst', '_ext/handbook/store.py', 'source'):
        assert not ignored.search(f'{tmp_path}/{path}'), path
    # a registry inside the pages' folder: nothing more to watch
    assert preview_watch.arguments([tmp_path / 'source' / 'links.rst'], [],
                                   tmp_path / 'source') == []


def test_intl_zh_tw_refreshes_the_handbooks_registry(other):
    # its own catalogs (another handbook's, without LOCALEDIR: refused, test_published.py)
    out = make_n('intl-zh_TW', f'SOURCEDIR={other / "source"}', f'LOCALEDIR={other / "locale"}')
    assert f"--registry '{other / 'links.tsv'}'" in out, out
    assert f'--srcdir {other / "source"}' in out
    assert f'--locale-dir {other / "locale"}' in out


def test_the_handbooks_own_catalogs_by_its_settings_or_localedir(other, tmp_path):
    """``locale_dir`` in its handbook.toml names another handbook's catalogs
    for every target: make intl-zh_TW writes them, and its zh_TW edition's
    build reads them itself (no -D).  LOCALEDIR= overrides it, for the build too."""
    with (other / 'source' / 'handbook.toml').open('a', encoding='utf-8') as f:
        f.write("locale_dir = '../catalogs'\n")
    out = make_n('intl-zh_TW', f'SOURCEDIR={other / "source"}')
    assert f'--locale-dir {other / "catalogs"}' in out, out
    assert f'-d {other / "catalogs"}' in out
    out = make_n('html', 'LANGUAGE=zh_TW', f'SOURCEDIR={other / "source"}')
    assert 'handbook_locale_dir' not in out, out
    given = tmp_path / 'given'
    out = make_n('html', 'LANGUAGE=zh_TW', f'SOURCEDIR={other / "source"}', f'LOCALEDIR={given}')
    assert f'-D handbook_locale_dir={given}' in out, out
    # this handbook's default edition: neither
    assert 'handbook_locale_dir' not in make_n('html', f'LOCALEDIR={given}')


def test_linkcheck_changed_target_lets_the_tool_read_the_settings(other):
    out = make_n('linkcheck-changed', f'SOURCEDIR={other / "source"}').replace('\\\n', ' ')
    line = next(ln for ln in out.splitlines() if 'tools/linkcheck_changed.py' in ln)
    assert "--confdir '.'" in line and f"--srcdir '{other / 'source'}'" in line, line
    assert '--cards' not in line  # not this handbook's cards.tsv: the tool reads the settings


def test_the_settings_a_build_uses(other, tmp_path):
    settings = load('handbook_settings')
    values = settings.resolve(other / 'source', ROOT)
    assert values['handbook_cards'] == str(other / 'links.tsv')
    assert values['handbook_faq_url'] == 'https://faq.example/q?fid={id}'
    assert values['handbook_card_url'] == 'https://ygocdb.com/card/name/{name}'  # conf.py's
    given = settings.resolve(other / 'source', ROOT, cards=tmp_path / 'given.tsv')
    assert given['handbook_cards'] == str(tmp_path / 'given.tsv')
    # the catalogs: conf.py's, relative to it; the settings file's, relative to it
    assert values['handbook_locale_dir'] == str(ROOT / 'locale')
    (other / 'source' / 'handbook.toml').write_text("locale_dir = 'po'\n", encoding='utf-8')
    assert settings.resolve(other / 'source', ROOT)['handbook_locale_dir'] == \
        str(other / 'source' / 'po')
    # no settings file, no conf.py: the extension's default beside the (missing) conf.py
    assert settings.resolve(tmp_path / 'none', tmp_path)['handbook_cards'] == \
        str(tmp_path / 'cards.tsv')


def test_a_conf_py_is_read_as_sphinx_reads_it(other, tmp_path, monkeypatch):
    """In its folder, with ``tags`` (an edition's conf.py asks for them)."""
    settings = load('handbook_settings')
    conf = tmp_path / 'conf'
    write(conf / 'conf.py', "from pathlib import Path\n"
                            "handbook_cards = 'current.tsv' if tags.has('current') else "
                            "Path('names.txt').read_text().strip()\n")
    write(conf / 'names.txt', 'mine.tsv\n')
    monkeypatch.chdir(tmp_path)  # not the folder of conf.py
    assert settings.resolve(tmp_path / 'none', conf)['handbook_cards'] == str(conf / 'mine.tsv')


def git(repo: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != 'GITHUB_ACTIONS'}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM='1',
               GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@example.org',
               GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@example.org')
    subprocess.run(['git', *args], cwd=repo, env=env, check=True, capture_output=True)


def test_linkcheck_changed_checks_the_handbooks_registry_and_faq_address(other):
    """As make linkcheck-changed SOURCEDIR=source runs it in the other
    handbook's repository, with this project's conf.py, outside the venv."""
    git(other, 'init', '-q', '-b', 'main')
    git(other, 'add', '-A')
    git(other, 'commit', '-q', '-m', 'base')
    with (other / 'links.tsv').open('a', encoding='utf-8') as f:
        f.write('card\t黑洞\t4711\n')                                     # 3: added
    with (other / 'source' / 'index.rst').open('a', encoding='utf-8') as f:
        f.write('\n| 「`旋风`_」…\\ :ruling:`17/3/24 <faq:19691>`\n')    # 6: added
    done = subprocess.run(
        ['python3', str(TOOLS / 'linkcheck_changed.py'), '--base', 'main', '--srcdir', 'source',
         '--confdir', str(ROOT), '--list'],
        cwd=other, capture_output=True, text=True, encoding='utf-8', timeout=60,
        env={k: v for k, v in os.environ.items() if k != 'VIRTUAL_ENV'})
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()) == [
        'links.tsv:3: https://ygocdb.com/card/4711',
        'source/index.rst:6: https://faq.example/q?fid=19691',
    ]


# -- make help and the README list every target and variable --------------------------

MAKEFILE = (ROOT / 'Makefile').read_text(encoding='utf-8')


def test_make_help_lists_every_target_and_variable():
    done = subprocess.run(['make', '-s', '-C', str(ROOT), 'help'], capture_output=True,
                          text=True, encoding='utf-8', timeout=60)
    assert done.returncode == 0, done.stderr
    phony = {t for line in re.findall(r'^\.PHONY:(.*)$', MAKEFILE, re.M) for t in line.split()}
    listed = set(re.findall(r'^make ([\w-]+)', done.stdout, re.M))
    assert phony - listed - {'help'} == set(), 'make help leaves out these targets'
    variables = set(re.findall(r'^([A-Z_]+)\s*\?=', MAKEFILE, re.M))
    named = {w for line in done.stdout.splitlines() if line.startswith(('Variables:', ' '))
             for w in line.split()}
    assert variables - named == set(), 'make help leaves out these variables'


def test_the_readme_documents_every_make_variable():
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    section = readme.split('\n## Make variables\n', 1)[1].split('\n## ', 1)[0]
    variables = set(re.findall(r'^([A-Z_]+)\s*\?=', MAKEFILE, re.M))
    assert {v for v in variables if f'`{v}`' not in section} == set()


def test_a_tag_no_edition_and_no_page_knows_is_refused(tmp_path):
    """``make html TAGS=curent`` built the full edition over the published one
    (an adopter's round trip).  A tag a page's ``.. only::`` names is fine."""
    done = subprocess.run(['make', '-n', '-C', str(ROOT), 'html', 'TAGS=curent'],
                          capture_output=True, text=True, encoding='utf-8', timeout=60)
    assert done.returncode == 2
    assert ("TAGS or EDITIONS holds 'curent', which no edition and no page's .. only:: knows: the editions "
            'are current (TAGS=current).  Stop.') in done.stderr
    write(tmp_path / 'source' / 'index.rst', '标题\n====\n\n.. only:: print\n\n   印刷版。\n')
    assert 'print' in make_n('html', 'TAGS=print', f'SOURCEDIR={tmp_path / "source"}')
