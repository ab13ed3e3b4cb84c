"""Card spellings in the other script, for the search's spelling table.

A reader who writes Traditional characters types ``誘餌人偶·蓪`` for the
card ``诱饵人偶·蓪``, alias or not; one who writes Simplified characters types
``旋风`` in the Traditional edition.  OpenCC converts each spelling of a
linked card (:meth:`handbook.search.rulings_index.Index.spellings`): in a
Chinese build into Traditional characters (``s2t``, and Taiwan's and Hong
Kong's forms: ``s2tw``, ``s2twp``, ``s2hk``), in a Traditional build into
Simplified ones (``tw2s``, ``t2s``); a build of another language converts
nothing.

OpenCC's dictionaries take about 44 MB, which the process that made the
index would keep to the end of the build (a freed converter does not give
its memory back), and that process is the build's largest.  So the
conversion runs in a process of its own, started only for spellings no
build converted before: what it found is kept in the doctree folder
(:data:`KEPT`), and an edit converts nothing.  Where OpenCC cannot run,
a note says so and the search finds each card by the spellings it has.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from handbook.core import reports
from handbook.core.files import write_if_changed

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sphinx.application import Sphinx

#: languages written in Traditional characters
TRADITIONAL = ('zh_TW', 'zh_HK', 'zh_MO', 'zh_Hant')
#: the conversions, by the script of the build's language
INTO_TRADITIONAL = ('s2t', 's2tw', 's2twp', 's2hk')
INTO_SIMPLIFIED = ('tw2s', 't2s')
#: what earlier builds converted, in the doctree folder
KEPT = 'handbook-other-scripts.json'
#: the converting process's program: names in (JSON, stdin), each name's
#: conversions out (JSON, stdout)
PROGRAM = '''import json, sys
import opencc
asked = json.load(sys.stdin)
converters = [opencc.OpenCC(config).convert for config in asked["configs"]]
json.dump([sorted({convert(name) for convert in converters} - {name})
           for name in asked["names"]], sys.stdout, ensure_ascii=False)
'''


def traditional(language: str | None) -> bool:
    """Whether the build's language is written in Traditional characters."""
    return bool(language) and language.replace('-', '_').startswith(TRADITIONAL)


def configs(language: str | None) -> tuple[str, ...]:
    """OpenCC's conversions into the other script of a build's language."""
    if traditional(language):
        return INTO_SIMPLIFIED
    if language and language.replace('-', '_').split('_')[0] == 'zh':
        return INTO_TRADITIONAL
    return ()


def variants(app: Sphinx, names: Iterable[str]) -> dict[str, list[str]]:
    """Each of *names* in the other script: ``{name: [its other spellings]}``
    (a name OpenCC leaves as it is has none)."""
    wanted = configs(app.config.language)
    if not wanted:
        return {}
    path = Path(app.doctreedir) / KEPT
    kept: dict[str, list[str]] = {}
    try:
        data = json.loads(path.read_text(encoding='utf-8'))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get('configs') == list(wanted) \
            and isinstance(data.get('names'), dict):
        # what is not a list of texts is converted again
        kept = {name: found for name, found in data['names'].items()
                if isinstance(found, list) and all(isinstance(text, str) for text in found)}
    names = sorted(set(names))
    missing = [name for name in names if name not in kept]
    if missing:
        converted = _convert(app, wanted, missing)
        if converted is None:
            return {name: kept[name] for name in names if name in kept}
        kept.update(zip(missing, converted))
        with contextlib.suppress(OSError):  # not kept: the next build converts them again
            write_if_changed(path, json.dumps({'configs': list(wanted), 'names': kept},
                                              ensure_ascii=False, sort_keys=True))
    return {name: kept[name] for name in names}


def _convert(app: Sphinx, wanted: tuple[str, ...], names: list[str]) -> list[list[str]] | None:
    """*names* converted by OpenCC in a process of its own, or None (a note says why)."""
    asked = json.dumps({'configs': list(wanted), 'names': names}, ensure_ascii=False)
    try:
        done = subprocess.run([sys.executable, '-c', PROGRAM], input=asked.encode(),
                              capture_output=True, timeout=300, check=False)
        if done.returncode == 0:
            out = json.loads(done.stdout.decode())
            if isinstance(out, list) and len(out) == len(names):
                return out
        why = done.stderr.decode(errors='replace').strip().splitlines()[-1:] or ['no answer']
    except (OSError, ValueError, subprocess.SubprocessError) as err:
        why = [str(err)]
    reports.note(f'the search finds the cards by the spellings the registry and the pages '
                 f'give, not in the other script too: OpenCC did not run ({why[0]}); install '
                 f'the project\'s requirements (pip install -r requirements.txt)',
                 location=None, subtype='search-scripts', config=app.config)
    return None
