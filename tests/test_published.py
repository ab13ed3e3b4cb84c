"""make html builds aside and publishes what changed (_ext/handbook/publishing/published.py,
tools/build_html.py; issue 34, cases 6, 7 and 9): a no-change rebuild writes
no file of the published site, an edit the files it changed; a full disk, a
read-only build folder or a killed build never damage the good site; one
build at a time; a killed build's next build is byte for byte a clean one's.

The builds are ``make html`` of the mini-handbook (tests/roots/test-handbook,
the project's conf.py, every extension), copied with its files' dates (outside
git they are the pages' "last updated" dates)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import resource
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from helpers import ROOT, make_command, once, run_folder, search_answers

ROOT_HANDBOOK = ROOT / 'tests' / 'roots' / 'test-handbook'


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob('*')) if p.is_file()}


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """``{file: (inode, mtime_ns)}``: a file counts as written when either changed."""
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob('*')) if p.is_file()}


def differing(a: dict, b: dict) -> list[str]:
    return sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))


def source(tmp_path: Path, name: str = 'src') -> Path:
    return Path(shutil.copytree(ROOT_HANDBOOK, tmp_path / name))


def make_html(srcdir: Path, builddir: Path, *variables: str) -> list[str]:
    return make_command('html', f'SOURCEDIR={srcdir}', f'CARDS={srcdir / "cards.tsv"}',
                        f'BUILDDIR={builddir}', 'JOBS=1', *variables)


def build(srcdir: Path, builddir: Path, *variables: str, limit: int | None = None
          ) -> subprocess.CompletedProcess:
    """``make html``; with *limit*, no file may grow past that many bytes
    (writes fail with EFBIG: a full disk as far as the build can tell)."""
    return subprocess.run(make_html(srcdir, builddir, *variables), capture_output=True,
                          text=True, check=False, preexec_fn=None if limit is None else
                          lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))


def edit(page: Path) -> None:
    page.write_text(page.read_text(encoding='utf-8').replace('也一样', '也是一样'), encoding='utf-8')


@pytest.fixture(scope='module')
def references(tmp_path_factory) -> dict[str, Path]:
    """What the build after a fault (a kill, a full disk, a warning) must
    equal, byte for byte: the site of a clean build of the mini-handbook
    (``clean``), and of a clean build of it with p3.rst edited
    (``incremental``); and the edited page (``edited``), dated after every
    build of the test run.  Built once per test run, for every test and every
    pytest-xdist worker (``helpers.once``)."""
    def work(folder: Path) -> dict:
        srcdir = source(folder)
        assert build(srcdir, folder / 'clean', 'SPHINXOPTS=-q').returncode == 0
        edited = Path(shutil.copytree(srcdir, folder / 'edited'))
        edit(edited / 'p3.rst')
        # Sphinx reads a page again when its file is newer than the build that
        # last read it; the copies the tests make keep the date
        later = time.time_ns() + 3_600 * 10**9
        os.utime(edited / 'p3.rst', ns=(later, later))
        assert build(edited, folder / 'clean-edited', 'SPHINXOPTS=-q').returncode == 0
        return {}

    once(tmp_path_factory, 'killed-build-references', work)
    folder = run_folder(tmp_path_factory) / 'killed-build-references'
    found = {'clean': folder / 'clean' / 'html', 'incremental': folder / 'clean-edited' / 'html',
             'edited': folder / 'edited' / 'p3.rst'}
    assert found['edited'].is_file(), 'the reference builds did not finish'
    return found


# -- the sweep ---------------------------------------------------------------------------

def test_a_rebuild_publishes_exactly_what_changed(tmp_path):
    srcdir, out = source(tmp_path), tmp_path / 'build'
    assert build(srcdir, out, 'SPHINXOPTS=-q').returncode == 0
    site = out / 'html'
    first = stamps(site)
    assert {'index.html', 'searchindex.js', 'rulings.json', '.buildinfo'} <= first.keys()
    assert build(srcdir, out, 'SPHINXOPTS=-q').returncode == 0
    assert differing(first, stamps(site)) == []  # nothing changed: no file written

    before = files(site)
    edit(srcdir / 'p3.rst')
    assert build(srcdir, out, 'SPHINXOPTS=-q').returncode == 0
    after = files(site)
    changed = differing(before, after)
    assert differing(first, stamps(site)) == changed
    # the search's parts that hold the edited ruling (which of them: the index's business)
    assert [name for name in changed if not name.startswith('_static/search/')] == [
        # no feed.xml: a site without a published address has none
        '_static/rulings-index.js', 'cards/死者苏生.html', 'cards/王宫的铁壁.html',
        'p3.html', 'rulings.json',
        'search.html',  # it loads the rulings' search index, whose checksum changed
        'timeline/2018.html']  # the year page of the ruling; not the timeline's page, the same
    assert any(name.startswith('_static/search/') for name in changed)


def test_a_registry_edit_that_changes_no_page_prints_its_notes_once(tmp_path):
    """A second spelling of a card, added to the registry: no page is read
    again, nor written, so Sphinx keeps the environment as it was; the
    next build, the registry unchanged since, sums its note up in one line
    (an editor's round trip: the note came back in full at every build)."""
    srcdir, out = source(tmp_path), tmp_path / 'build'
    assert build(srcdir, out).returncode == 0
    registry = srcdir / 'cards.tsv'
    registry.write_text(registry.read_text(encoding='utf-8') + 'card\t神之 宣告\n',
                        encoding='utf-8')
    said = []
    for _build in range(3):
        done = build(srcdir, out)
        assert done.returncode == 0
        said.append([line.split(': note: ', 1)[1] for line in
                     (done.stdout + done.stderr).splitlines() if ': note: ' in line])
    assert len(said[0]) == 1 and said[0][0].startswith("「神之 宣告」 spells line 3's card")
    assert said[1] == said[2] == [
        'the card registry is as the last build read it: its note (handbook.registry-alias ×1) '
        'was printed then and is not repeated; make check lists them [handbook.registry-notes]']


def test_a_build_of_another_source_folder_publishes_none_of_the_first(tmp_path):
    """``make html SOURCEDIR=…`` of another handbook into the same build
    folder: Sphinx's environment is a new one, which knows none of the first
    handbook's pages, so their files stayed in the staging folder and were
    published (an adopter's round trip).  The build starts from scratch,
    and says why; the site is the second handbook's alone."""
    first, builddir = source(tmp_path, 'first'), tmp_path / 'build'
    second = source(tmp_path, 'second')  # its page p6 is p7
    (second / 'p6.rst').rename(second / 'p7.rst')
    index = second / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   p6\n', '   p7\n'),
                     encoding='utf-8')
    assert build(first, builddir).returncode == 0
    assert (builddir / 'html' / 'p6.html').is_file()
    done = build(second, builddir)
    assert done.returncode == 0, done.stderr
    assert (f'make html: the last build into {builddir / "html"} read another source or '
            'configuration folder: building it from scratch') in done.stderr
    assert not (builddir / 'html' / 'p6.html').exists()
    assert (builddir / 'html' / 'p7.html').is_file()
    again = build(second, builddir)  # the same folder again: nothing from scratch
    assert again.returncode == 0 and 'from scratch' not in again.stderr


@pytest.mark.parametrize('variable', ['SOURCEDIR', 'CARDS', 'BUILDDIR'])
def test_a_path_with_a_space_is_refused_before_anything_runs(tmp_path, variable):
    """A folder with a space in its path: make passed it on as two paths, and
    Sphinx read the folder above the handbook's and wrote into the project
    (an adopter's round trip).  make stops at once, naming the variable and
    a way out, and writes nothing."""
    spaced = tmp_path / 'my book'
    shutil.copytree(ROOT_HANDBOOK, spaced)
    values = {'SOURCEDIR': spaced, 'CARDS': spaced / 'cards.tsv', 'BUILDDIR': spaced / 'build'}
    suffix = '.tsv' if variable == 'CARDS' else ''
    settings = {'SOURCEDIR': ROOT_HANDBOOK, 'BUILDDIR': tmp_path / 'build', 'JOBS': 1,
                variable: values[variable]}
    done = subprocess.run(make_command('html', *(f'{name}={value}'
                                                 for name, value in settings.items())),
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert (f"{variable} holds a space ('{values[variable]}'), which make cannot pass on as one "
            'path: give a path without spaces, e.g. a link to it, ln -s '
            f"'{values[variable]}' /tmp/handbook-{variable.lower()}{suffix}.  Stop.") in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ['my book']
    assert not (spaced / 'build').exists()


def test_a_relative_path_make_c_would_read_in_another_folder_is_refused(tmp_path):
    """``make -C <clone> check SOURCEDIR=source``, typed in an adopter's
    folder that has a source/: make read the clone's source/ (an adopter's
    round trip).  make stops, giving both absolute paths; a path only the
    clone has, or an absolute one, goes on."""
    (tmp_path / 'source').mkdir()
    env = {**os.environ, 'PWD': str(tmp_path)}  # as the adopter's shell sets it

    def make(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(['make', '-n', '-C', str(ROOT), 'check', *args], cwd=tmp_path,
                              env=env, capture_output=True, text=True, check=False)

    done = make('SOURCEDIR=source')
    assert done.returncode == 2
    assert (f'SOURCEDIR=source is read in {ROOT}, where make -C runs, not in {tmp_path}, where '
            f'you are: give an absolute path, SOURCEDIR={tmp_path}/source or '
            f'SOURCEDIR={ROOT}/source.  Stop.') in done.stderr
    # a folder only where you are: that one alone (a round trip was offered one that is not)
    (tmp_path / 'book').mkdir()
    assert (f'SOURCEDIR=book is read in {ROOT}, where make -C runs, not in {tmp_path}, where '
            f'you are: give an absolute path, SOURCEDIR={tmp_path}/book.  Stop.'
            ) in make('SOURCEDIR=book').stderr
    assert make(f'SOURCEDIR={tmp_path}/source').returncode == 0
    assert make('SOURCEDIR=tests/roots/test-check-clean').returncode == 0


@pytest.mark.parametrize('target', [['intl-update'], ['intl-zh_TW'], ['intl-stat'],
                                    ['html', 'LANGUAGE=zh_TW'], ['html-all'],
                                    ['epub', 'LANGUAGE=zh_TW']])
def test_another_handbooks_catalogs_are_never_this_projects(tmp_path, target):
    """``make intl-zh_TW SOURCEDIR=<another handbook>`` rewrote this project's
    catalogs in locale/ with that handbook's messages, and its zh_TW edition
    was translated by them (an adopter's round trip).  Without catalogs of
    its own (``locale_dir`` in its handbook.toml, or LOCALEDIR), make stops
    before anything runs, naming them; this project's catalogs stay as they are."""
    other = source(tmp_path, 'other')
    before = files(ROOT / 'locale')
    done = subprocess.run(make_command(*target, f'SOURCEDIR={other}',
                                       f'BUILDDIR={tmp_path / "build"}'),
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert (f'SOURCEDIR {other} is another handbook than this project\'s, whose catalogs are '
            f"locale/: give it its own, locale_dir = '../locale' in {other}/handbook.toml for "
            f'example (or LOCALEDIR={tmp_path}/locale).  Stop.') in done.stderr
    assert not (tmp_path / 'build').exists()
    assert files(ROOT / 'locale') == before


def test_a_handbook_at_its_repositorys_top_is_told_catalogs_inside_it(tmp_path):
    """The pages at the top of their own repository: ../locale was outside
    it (an adopter's round trip)."""
    other = source(tmp_path, 'other')
    (other / '.git').mkdir()
    done = subprocess.run(make_command('intl-zh_TW', f'SOURCEDIR={other}'),
                          capture_output=True, text=True, check=False)
    assert (f"give it its own, locale_dir = 'locale' in {other}/handbook.toml for example "
            f'(or LOCALEDIR={other}/locale).  Stop.') in done.stderr


def test_the_sweep_removes_what_is_gone_and_leaves_other_sites_alone(tmp_path):
    from handbook.publishing import published

    folders = published.Folders(tmp_path / 'html', tmp_path / 'staging', tmp_path / 'doctrees')
    (folders.staging / 'sub').mkdir(parents=True)
    (folders.staging / 'index.html').write_text('新')
    (folders.staging / 'sub' / 'page.html').write_text('页')
    (folders.staging / '.buildinfo.bak').write_text('Sphinx keeps it where conf.py changed')
    (folders.site / 'old').mkdir(parents=True)
    (folders.site / '.buildinfo.bak').write_text('an earlier sweep published it')
    (folders.site / 'old' / 'gone.html').write_text('旧')
    (folders.site / 'index.html').write_text('旧')
    (folders.site / '.index.html.123.tmp').write_text('a killed sweep left it')
    (folders.site / 'zh_TW').mkdir()  # another build's site (its own .buildinfo)
    (folders.site / 'zh_TW' / '.buildinfo').write_text('x')
    (folders.site / 'zh_TW' / 'index.html').write_text('繁')
    folders.marker.write_text('')
    sweep = published.publish(folders)
    assert sorted(sweep.written) == ['index.html', 'sub/page.html']
    assert files(folders.site) == {'index.html': '新'.encode(), 'sub/page.html': '页'.encode(),
                                   'zh_TW/.buildinfo': b'x', 'zh_TW/index.html': '繁'.encode()}
    assert not folders.marker.exists()

    # the last file of a folder gone (_related/ when no page shares a card):
    # the staging folder stays, empty; the site's goes, as no clean build has it
    (folders.staging / 'sub' / 'page.html').unlink()
    (folders.staging / 'sub' / 'deeper').mkdir()
    folders.marker.write_text('')
    sweep = published.publish(folders)
    assert sweep.removed == ['sub/page.html']
    assert sorted(p.name for p in folders.site.iterdir()) == ['index.html', 'zh_TW']


def test_a_sweep_that_fails_leaves_the_site_as_it_was(tmp_path):
    from handbook.publishing import published

    folders = published.Folders(tmp_path / 'html', tmp_path / 'staging', tmp_path / 'doctrees')
    folders.staging.mkdir()
    folders.site.mkdir()
    for name in ('a', 'b', 'c'):
        (folders.staging / f'{name}.html').write_text(f'新{name}')
        (folders.site / f'{name}.html').write_text(f'旧{name}')
    # b's copy cannot be written (a folder where it must go): it fails after a's
    (folders.site / f'.b.html.{os.getpid()}.tmp').mkdir()
    with pytest.raises(published.PublishError) as raised:
        published.publish(folders)
    assert str(raised.value).startswith('make html: error: cannot write ')
    assert str(raised.value).endswith(f'the published site {folders.site} is left as it was')
    assert files(folders.site) == {f'{n}.html': f'旧{n}'.encode() for n in 'abc'}


def test_a_failed_translated_build_does_not_send_to_make_check(tmp_path):
    """make check reads the pages, not a translation's catalogs: a failed
    zh_TW build sent an adopter there for its catalogs' errors (an
    adopter's round trip)."""
    srcdir, out = source(tmp_path), tmp_path / 'build'
    (tmp_path / 'locale').mkdir()
    done = build(srcdir, out, 'SPHINXOPTS=-q', 'LANGUAGE=zh_TW', f'LOCALEDIR={tmp_path}/locale')
    assert done.returncode != 0  # no catalogs of its pages: a warning
    assert ('make html: the build failed (the problems are above; each at its line with its '
            f'fix): the published site {out}/html/zh_TW is left as it was') in done.stderr


def test_a_build_that_fails_on_a_warning_keeps_the_site_and_its_staging(tmp_path, references):
    """-W: a page's problem fails the build; the published site stays the
    last good one, and the next build goes on from the staging folder (it
    need not start from scratch: nothing in it was cut)."""
    srcdir, out = source(tmp_path), tmp_path / 'build'
    assert build(srcdir, out, 'SPHINXOPTS=-q').returncode == 0
    good = files(out / 'html')
    page = srcdir / 'p3.rst'
    text = page.read_text(encoding='utf-8')
    page.write_text(text.replace('17/3/23', '17/2/30'), encoding='utf-8')
    done = build(srcdir, out, 'SPHINXOPTS=-q')
    assert done.returncode != 0  # (make's own status: 2 when its recipe failed)
    assert ('make html: the build failed (the problems are above; make check lists each with '
            f'its fix): the published site {out}/html is left as it was\n') \
        in done.stderr
    assert files(out / 'html') == good
    shutil.copy2(references['edited'], page)  # fixed (and edited), with its date
    done = build(srcdir, out, 'SPHINXOPTS=-q')
    assert (done.returncode, done.stderr) == (0, '')  # not from scratch
    # the search index kept its ids from the failed build, where a clean build
    # lays them out in order (search/layout.py): it answers the same (the
    # search page names its manifest with the manifest's checksum)
    site, clean = files(out / 'html'), files(references['incremental'])
    index = ('_static/rulings-index.js', '_static/search/')
    assert {name for name in differing(site, clean) if not name.startswith(index)} <= \
        {'search.html'}
    checksum = re.compile(rb'rulings-index\.js\?v=[0-9a-f]+')
    assert checksum.sub(b'', site['search.html']) == checksum.sub(b'', clean['search.html'])
    assert search_answers(out / 'html') == search_answers(references['incremental'])


# -- faults -------------------------------------------------------------------------------

#: make's own line when a recipe failed (make[1] when make test runs make)
MAKE_FAILED = re.compile(r'^make(?:\[\d+\])?: \*\*\* ')


def crash_report(output: str) -> bool:
    return 'Traceback' in output or 'Versions\n========' in output or 'Exception occurred' in output


def test_a_full_disk_during_a_rebuild_leaves_the_good_site(tmp_path, references):
    srcdir, out = source(tmp_path), tmp_path / 'build'
    assert build(srcdir, out, 'SPHINXOPTS=-q').returncode == 0
    good = files(out / 'html')
    shutil.copy2(references['edited'], srcdir / 'p3.rst')  # the edit, with its date
    done = build(srcdir, out, 'SPHINXOPTS=-q -E', limit=20_000)  # every page read and written
    assert done.returncode != 0
    assert not crash_report(done.stdout + done.stderr), done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith('make html: ')]
    assert said == [
        f'make html: error: cannot write {out}: the file is too large (File too large); free '
        'some space or make it writable, then run make html again',
        'make html: the build failed (the problems are above; make check lists each with its '
        f'fix): the published site {out}/html is left as it was; the '
        'next build starts from scratch']
    assert files(out / 'html') == good  # not one page cut
    # the disk has room again: the next build is a clean build's, byte for byte
    assert build(srcdir, out, 'SPHINXOPTS=-q').returncode == 0
    assert differing(files(out / 'html'), files(references['incremental'])) == []


def test_a_clean_build_onto_a_full_disk_is_one_line(tmp_path):
    srcdir, out = source(tmp_path), tmp_path / 'build'
    done = build(srcdir, out, 'SPHINXOPTS=-q', limit=20_000)
    assert done.returncode != 0
    assert not crash_report(done.stdout + done.stderr), done.stderr
    assert [p for p in (out / 'html').rglob('*') if p.is_file()] == []  # nothing published


@contextlib.contextmanager
def read_only(folder: Path):
    """*folder* made read-only, also for root (where ``chattr +i`` works)."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if shutil.which('chattr') is None or subprocess.run(
            ['chattr', '+i', str(folder)], capture_output=True, check=False).returncode:
        pytest.skip('cannot make a folder read-only for root on this file system')
    try:
        yield
    finally:
        subprocess.run(['chattr', '-i', str(folder)], check=True)


def test_a_read_only_build_folder_is_one_clear_error(tmp_path):
    srcdir, out = source(tmp_path), tmp_path / 'build'
    assert build(srcdir, out, 'SPHINXOPTS=-q').returncode == 0
    good = files(out / 'html')
    edit(srcdir / 'p3.rst')
    with read_only(out):
        done = build(srcdir, out, 'SPHINXOPTS=-q')
    assert done.returncode != 0
    assert done.stdout == ''
    [line] = [line for line in done.stderr.splitlines() if not MAKE_FAILED.match(line)]
    assert line == (f'make html: error: cannot write {out}: operation not permitted (Operation '
                    'not permitted); free some space or make it writable, then run make html '
                    'again') if os.geteuid() == 0 else line.startswith(
                        f'make html: error: cannot write {out}: permission denied'), line
    assert files(out / 'html') == good


def test_a_second_build_waits_for_the_first_and_names_it(tmp_path):
    srcdir, out = source(tmp_path), tmp_path / 'build'
    out.mkdir()
    with open(out / '.lock', 'w', encoding='utf-8') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the first build, as far as the second can tell
        lock.write('process 4242, started 2026-12-01 10:00:00: make html into elsewhere\n')
        lock.flush()
        second = subprocess.Popen(make_html(srcdir, out, 'SPHINXOPTS=-q'), text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert second.stderr.readline() == (
            f'make html: {out} is in use by another build (process 4242, started 2026-12-01 '
            '10:00:00: make html into elsewhere); waiting for it to end\n')
        assert second.poll() is None  # it waits
    stdout, stderr = second.communicate(timeout=300)
    assert (second.returncode, stdout, stderr) == (0, '', '')
    assert (out / 'html' / 'index.html').is_file()


# -- kill -9 at ten points of a clean and an incremental build -----------------------------

#: (which build, the output line after which the build is killed)
KILLS = [
    ('clean', 'loading translations'),
    ('clean', 'reading sources... [ 67%]'),
    ('clean', 'pickling environment'),
    ('clean', 'copying static files'),
    ('clean', 'writing output... [ 50%]'),
    ('clean', 'dumping search index'),
    ('incremental', 'reading sources'),
    ('incremental', 'writing output'),
    ('incremental', 'generating indices'),
    ('incremental', 'build succeeded.'),
]


def killed_at(srcdir: Path, out: Path, line: str, jobs: str) -> None:
    """``make html``, killed (-9, with every process it started) once it
    prints *line*."""
    build_ = subprocess.Popen(make_html(srcdir, out, f'JOBS={jobs}'), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True)
    seen = False
    for printed in build_.stdout:
        if printed.startswith(line):
            seen = True
            os.killpg(build_.pid, signal.SIGKILL)
            break
    build_.stdout.close()
    build_.wait()
    assert seen, f'the build never printed {line!r}'


@pytest.mark.parametrize(('kind', 'line', 'jobs'), [
    (kind, line, '2' if number % 2 else '1') for number, (kind, line) in enumerate(KILLS)])
def test_a_killed_build_is_followed_by_a_clean_one(tmp_path, references, kind, line, jobs):
    reference = files(references[kind])
    if kind == 'incremental':
        assert differing(reference, files(references['clean']))  # the edit shows
    pages, out = source(tmp_path), tmp_path / 'build'
    if kind == 'incremental':
        assert build(pages, out, 'SPHINXOPTS=-q').returncode == 0
        shutil.copy2(references['edited'], pages / 'p3.rst')  # the edit, with its date
    killed_at(pages, out, line, jobs=jobs)
    done = build(pages, out, 'SPHINXOPTS=-q')
    assert done.returncode == 0, (line, done.stderr)
    site = files(out / 'html')
    assert [name for name in site if name.endswith('.tmp')] == [], line
    assert differing(site, reference) == [], line
