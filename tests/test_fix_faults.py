"""make fix and make autolink under faults (issue 34, cases 8 and 10): a page
is written whole or not at all, every error is one line at its file, only
the changes made are printed, and the time is linear in a line block's length.

Faults without privileges: a file size limit (RLIMIT_FSIZE) stands for a
full disk (a write fails half-way, EFBIG) and, with its signal left to kill
the process (SIGXFSZ), for a run killed while it writes."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location('autolink', ROOT / 'tools' / 'autolink.py')
autolink = sys.modules['autolink'] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(autolink)

LEGACY = ROOT / 'tests' / 'roots' / 'test-legacy-fix'
REGISTRY = ROOT / 'tests' / 'roots' / 'test-check-cards' / 'cards.tsv'  # 旋风, 王宫的铁壁, 星骑士
#: a line of a line block that make fix changes three times
LINE = ('| 「旋风」的效果，**不能连锁发动「`星尘龙`_」的①效果**。\\ :ruling:`17/3/24 '
        '<http://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={}>`\n')


@pytest.fixture
def handbook(tmp_path) -> Path:
    return Path(shutil.copytree(LEGACY, tmp_path / 'handbook'))


def run(tool: str, folder: Path, *args: str, limit: int | None = None,
        killed_by_limit: bool = False) -> subprocess.CompletedProcess:
    """tools/<tool>.py in *folder*; with *limit*, no file it writes may grow
    past that many bytes: the write fails (EFBIG; Python ignores SIGXFSZ),
    or with *killed_by_limit* the signal kills the process as it writes."""
    script = str(ROOT / 'tools' / f'{tool}.py')
    command = [sys.executable, script, '--srcdir', '.', '--confdir', '.', *args]
    if killed_by_limit:
        command[1:2] = ['-c', 'import runpy, signal, sys; '
                        'signal.signal(signal.SIGXFSZ, signal.SIG_DFL); '
                        f'sys.argv[0] = {script!r}; runpy.run_path(sys.argv[0], run_name="__main__")']
    return subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False,
                          preexec_fn=None if limit is None else lambda: resource.setrlimit(
                              resource.RLIMIT_FSIZE, (limit, limit)))


def big_page(folder: Path, lines: int = 400) -> Path:
    page = folder / 'big.rst'
    page.write_text('大页\n====\n\n' + ''.join(LINE.format(i) for i in range(lines)),
                    encoding='utf-8')
    return page


def stray(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith('.tmp'))


def test_a_full_disk_leaves_the_page_whole_and_says_so_in_one_line(handbook):
    page = big_page(handbook)
    before = page.read_bytes()
    done = run('fix', handbook, limit=len(before) // 2)  # the small pages fit, the big one not
    assert page.read_bytes() == before  # not cut
    assert stray(handbook) == []
    errors = [line for line in done.stderr.splitlines() if ': error: ' in line]
    assert errors == ['big.rst: error: cannot write it (File too large): it is left as it '
                      'was, no change made; run it again']
    assert 'Traceback' not in done.stderr
    # only the changes made: the other pages', none of big.rst's
    assert done.stdout and not any(line.startswith('big.rst') for line in done.stdout.splitlines())
    assert done.stderr.splitlines()[-1] == 'make fix: 3 files changed, 1 not changed (errors above)'
    assert done.returncode == 1


def test_a_run_killed_while_writing_leaves_the_page_as_it_was(handbook):
    page = big_page(handbook)
    before = page.read_bytes()
    done = run('fix', handbook, 'big.rst', limit=len(before) // 2, killed_by_limit=True)
    assert done.returncode == -signal.SIGXFSZ  # killed in the middle of its write
    assert page.read_bytes() == before  # never 0 bytes, never cut


@contextlib.contextmanager
def unwritable(path: Path):
    """*path* made unwritable, also for root (where ``chattr +i`` works)."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        path.parent.chmod(0o555)
        try:
            yield
        finally:
            path.parent.chmod(0o755)
        return
    if shutil.which('chattr') is None or subprocess.run(
            ['chattr', '+i', str(path)], capture_output=True, check=False).returncode:
        pytest.skip('cannot make a file unwritable for root on this file system')
    try:
        yield
    finally:
        subprocess.run(['chattr', '-i', str(path)], check=True)


def test_an_unwritable_page_is_one_line_and_no_change_is_printed_for_it(handbook):
    page = handbook / 'index.rst'
    before = page.read_bytes()
    with unwritable(page):
        done = run('fix', handbook)
    assert page.read_bytes() == before
    errors = [line for line in done.stderr.splitlines() if ': error: ' in line]
    assert len(errors) == 1 and errors[0].startswith('index.rst: error: cannot write it (')
    assert 'Traceback' not in done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith('index.rst')] == []
    assert [line.split(':')[0] for line in done.stdout.splitlines()] == [
        'rulings.rst', 'rulings.rst', 'links.rst']


def test_autolink_reports_a_gbk_page_and_lists_what_it_changed(tmp_path):
    pages = tmp_path / 'pages'
    pages.mkdir()
    for name in ('a', 'b', 'c'):
        (pages / f'{name}.rst').write_text(f'页{name}\n====\n\n「旋风」的效果。\n', encoding='utf-8')
    (pages / 'd.rst').write_bytes('页\n====\n\n「旋风」的效果。\n'.encode('gbk'))
    done = subprocess.run([sys.executable, str(ROOT / 'tools' / 'autolink.py'), '--cards',
                           str(REGISTRY), '--srcdir', str(pages)], capture_output=True, text=True,
                          check=False)
    assert done.stdout.splitlines() == [f'{pages}/{name}.rst:4: 「旋风」 → 「`旋风`_」'
                                        for name in ('a', 'b', 'c')]
    assert done.stderr.splitlines() == [
        f'{pages}/d.rst:4: error: not UTF-8 text (byte 0xa1): not changed; save it as UTF-8',
        'make autolink: 3 files changed, 1 not changed (errors above)']
    assert done.returncode == 1


def test_a_symbolic_link_is_written_at_its_target(handbook):
    target = handbook / 'real-rulings.rst'
    (handbook / 'rulings.rst').rename(target)
    (handbook / 'rulings.rst').symlink_to(target.name)
    mode = target.stat().st_mode
    done = run('fix', handbook)
    assert done.returncode == 0, done.stderr
    assert (handbook / 'rulings.rst').is_symlink()
    assert 'https://www.db.yugioh-card.com' in target.read_text(encoding='utf-8')
    assert target.stat().st_mode == mode
    assert stray(handbook) == []


def test_the_work_is_linear_in_a_line_blocks_length(monkeypatch):
    """The brackets of a paragraph are read once: a line block of n lines
    (a yearly FAQ page's) makes make fix read O(n) characters, not O(n²)
    (it read every earlier line again for each line: 30,000 lines did not
    finish in 14 minutes)."""
    registry = autolink.load(REGISTRY)
    read = []

    def counting(text):
        read.append(len(text))
        return quotes(text)

    quotes = autolink.quotes
    monkeypatch.setattr(autolink, 'quotes', counting)
    text = ''.join(LINE.format(i) for i in range(3000))
    linked, _ = autolink.autolink(text, registry)
    assert linked.count('「`旋风`_」') == 3000
    assert sum(read) <= 2 * len(text)
