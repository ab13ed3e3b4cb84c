#!/usr/bin/env python3
"""The weekly link check's report: Sphinx linkcheck's ``output.json`` as an issue.

``.github/workflows/linkcheck.yml`` runs ``make linkcheck``, then this script
on ``_build/linkcheck/output.json`` (one JSON object per line: ``filename``
relative to the source folder, ``lineno``, ``status``, ``code``, ``uri``,
``info``).  It prints each broken or timed-out link at its file:line, the
way ``make check`` does::

    source/negation.rst:41: error: broken link https://… (404 Client Error: …) [linkcheck.broken]

and writes the body of the one issue that lists them (Markdown: a table of
file:line, link and what went wrong, sorted by file and line; at most
``--max-chars``, GitHub's limit being 65,536).  ``--github-output FILE``
appends ``broken=<count>`` and ``body=<the body>`` to a step's
``$GITHUB_OUTPUT``; ``--body FILE`` writes the body to a file.

``--make-outcome failure`` (``make linkcheck`` failed) with no broken link in
``output.json`` means the check itself failed, e.g. the build: the script
exits 1 so that the issue is left as it is.  A missing ``output.json``
exits 2.  Otherwise the exit status is 0, broken links or not: the issue
is the report.  Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
from pathlib import Path

FAILED = ('broken', 'timeout')
MARKER = '<!-- handbook weekly linkcheck: this issue is rewritten by .github/workflows/linkcheck.yml -->'


def read(output_json: Path, srcdir: str) -> list[dict]:
    """The failed links of an output.json, with ``path`` (srcdir/filename), sorted."""
    failed = []
    for raw in output_json.read_text(encoding='utf-8').splitlines():
        if not raw.strip():
            continue
        entry = json.loads(raw)
        if entry.get('status') in FAILED:
            name = str(entry.get('filename', '')).replace(os.sep, '/')
            entry['path'] = f'{srcdir.rstrip("/")}/{name}' if srcdir not in ('', '.') else name
            entry['lineno'] = int(entry.get('lineno') or 0)
            failed.append(entry)
    failed.sort(key=lambda e: (e['path'], e['lineno'], e.get('uri', '')))
    return failed


def _cell(text: str, limit: int = 200) -> str:
    text = ' '.join(str(text).split())
    if len(text) > limit:
        text = text[:limit - 1] + '…'
    return text.replace('|', '\\|')


def body(failed: list[dict], run_url: str = '', max_chars: int = 60000) -> str:
    urls = {e.get('uri') for e in failed}
    link = f' ([the run]({run_url}))' if run_url else ''
    head = [MARKER,
            f'The weekly `make linkcheck`{link} found **{len(failed)} broken '
            f'link{"s" if len(failed) != 1 else ""}** ({len(urls)} distinct '
            f'URL{"s" if len(urls) != 1 else ""}), by file and line.  Fix them in the '
            'page or in `cards.tsv` (a card\'s URL comes from its row); this issue '
            'is rewritten by each run and closed when none is left.',
            '',
            '| where | link | what went wrong |',
            '| --- | --- | --- |']
    rows = []
    for e in failed:
        what = e.get('info') or e['status']
        if e['status'] == 'timeout':
            what = f'timed out: {what}'
        rows.append(f'| `{e["path"]}:{e["lineno"]}` | {_cell(e.get("uri", ""), 300)} '
                    f'| {_cell(what)} |')
    text = '\n'.join(head + rows) + '\n'
    while len(text) > max_chars and rows:
        rows = rows[:max(0, len(rows) - max(1, len(rows) // 10))]
        rest = len(failed) - len(rows)
        text = '\n'.join(head + rows + ['', f'… and {rest} more: see the run\'s log.']) + '\n'
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--output-json', type=Path, default=Path('_build/linkcheck/output.json'))
    parser.add_argument('--srcdir', default='source', help='the pages\' folder (SOURCEDIR)')
    parser.add_argument('--body', type=Path, help='write the issue body to this file')
    parser.add_argument('--github-output', type=Path,
                        help='append broken=… and body=… to this $GITHUB_OUTPUT file')
    parser.add_argument('--make-outcome', default='',
                        help="the outcome of make linkcheck's step (success, failure)")
    parser.add_argument('--max-chars', type=int, default=60000)
    args = parser.parse_args(argv)

    if not args.output_json.is_file():
        print(f'linkcheck report: {args.output_json} is missing: did make linkcheck run?',
              file=sys.stderr)
        return 2
    failed = read(args.output_json, args.srcdir)
    for e in failed:
        kind = 'timed out' if e['status'] == 'timeout' else 'broken link'
        print(f'{e["path"]}:{e["lineno"]}: error: {kind} {e.get("uri", "")} '
              f'({" ".join(str(e.get("info", "")).split())}) [linkcheck.{e["status"]}]')
    print(f'linkcheck report: {len(failed)} broken link{"s" if len(failed) != 1 else ""}')
    if args.make_outcome == 'failure' and not failed:
        print('linkcheck report: make linkcheck failed, yet output.json lists no broken '
              'link: the check itself failed (see its log); the issue is left as it is',
              file=sys.stderr)
        return 1
    server = os.environ.get('GITHUB_SERVER_URL', '')
    repository, run_id = os.environ.get('GITHUB_REPOSITORY', ''), os.environ.get('GITHUB_RUN_ID', '')
    run_url = f'{server}/{repository}/actions/runs/{run_id}' if server and repository and run_id else ''
    text = body(failed, run_url, args.max_chars)
    if args.body:
        args.body.write_text(text, encoding='utf-8')
    if args.github_output:
        delimiter = f'EOF_{secrets.token_hex(16)}'
        with args.github_output.open('a', encoding='utf-8') as out:
            out.write(f'broken={len(failed)}\n')
            out.write(f'body<<{delimiter}\n{text}{delimiter}\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
