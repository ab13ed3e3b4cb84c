"""Card spellings in the other script, for the search's spelling table.

A reader who writes Traditional characters types ``誘餌人偶·蓪`` for the
card ``诱饵人偶·蓪``, alias or not; one who writes Simplified characters types
``旋风`` in the Traditional edition.  OpenCC converts each spelling of a
linked card (:meth:`handbook.search.rulings_index.Index.spellings`): in a
Chinese build into Traditional characters (``s2t``, and Taiwan's and Hong
Kong's forms: ``s2tw``, ``s2twp``, ``s2hk``), in a Traditional build into
Simplified ones (``tw2s``, ``t2s``) and into Traditional ones too (a card
with no zh_TW alias keeps its Simplified name there: an adopter's
round trip found 試膽競速 nothing in its Traditional edition); a build of
another language converts nothing.

OpenCC's dictionaries take about 44 MB, which the process that made the
index would keep to the end of the build (a freed converter does not give
its memory back), and that process is the build's largest.  So the
conversion runs in a process of its own, started only for spellings no
build converted before: what it found is kept in the doctree folder
(:data:`KEPT`), and an edit converts nothing.  Where OpenCC cannot run,
a note says so and the search finds each card by the spellings it has.

**Any text, in a Chinese build.**  A reader who writes Traditional
characters types ``傷害步驟`` or part of a name (``脫出裝置``), which no
spelling table holds.  So a Simplified build's index has a part of its
own, ``t`` (:func:`character_table`): each Traditional character whose
Simplified one (OpenCC's ``t2s``, character by character) is in the
index's texts.  A query term that finds nothing is searched again
converted by it (``rulings_search.js``): a query that finds something
loads nothing more.  The table of the whole script is made once, by the
same process, and kept (:data:`KEPT_CHARACTERS`).  A Traditional build has
one too: its index holds each text's Simplified counterpart
(:func:`handbook.search.rulings_index.counterpart`), which a Traditional
query finds through it where the text kept a Simplified name (an adopter's
link file has no zh_TW aliases).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
#: the table of the Traditional characters and their Simplified ones, in the doctree folder
KEPT_CHARACTERS = 'handbook-other-script-characters.json'
#: the conversion of the table, character by character
CHARACTERS_CONFIG = 't2s'
#: the blocks of characters it converts: CJK Unified Ideographs, Extension A,
#: Compatibility Ideographs (the Traditional forms OpenCC knows are in them)
CHARACTER_BLOCKS = ((0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00))
#: the converting process's program: names in (JSON, stdin), each name's
#: conversions out (JSON, stdout)
PROGRAM = '''import json, sys
import opencc
asked = json.load(sys.stdin)
converters = [opencc.OpenCC(config).convert for config in asked["configs"]]
json.dump([sorted({convert(name) for convert in converters} - {name})
           for name in asked["names"]], sys.stdout, ensure_ascii=False)
'''


#: the program that converts the blocks' characters (JSON in: the config and the
#: blocks; out: ``{character: its conversion}`` where it differs and is one character)
CHARACTERS_PROGRAM = '''import json, sys
import opencc
asked = json.load(sys.stdin)
chars = [chr(c) for start, end in asked["blocks"] for c in range(start, end)]
out = opencc.OpenCC(asked["config"]).convert("\\n".join(chars)).split("\\n")
if len(out) != len(chars):
    raise SystemExit("the characters were not converted one by one")
json.dump({a: b for a, b in zip(chars, out) if a != b and len(b) == 1}, sys.stdout,
          ensure_ascii=False)
'''


def traditional(language: str | None) -> bool:
    """Whether the build's language is written in Traditional characters."""
    return bool(language) and language.replace('-', '_').startswith(TRADITIONAL)


def configs(language: str | None) -> tuple[str, ...]:
    """OpenCC's conversions into the other script of a build's language; a
    Traditional build's into its own script too: a card without a zh_TW
    alias keeps its Simplified name in it (an adopter's link file has none)."""
    if traditional(language):
        return INTO_SIMPLIFIED + INTO_TRADITIONAL
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


def character_table(app: Sphinx, used: Iterable[str]) -> dict[str, str]:
    """``{Traditional character: Simplified character}`` for each Simplified
    one of *used* (the index's texts' characters, their Simplified
    counterparts' in a Traditional build), in a build of Chinese; ``{}`` in
    any other build, or where OpenCC cannot run."""
    if not configs(app.config.language):
        return {}
    path = Path(app.doctreedir) / KEPT_CHARACTERS
    try:
        data = json.loads(path.read_text(encoding='utf-8'))
    except (OSError, ValueError):
        data = None
    if not (isinstance(data, dict) and data.get('config') == CHARACTERS_CONFIG
            and isinstance(data.get('table'), dict)):
        asked = {'config': CHARACTERS_CONFIG, 'blocks': CHARACTER_BLOCKS}
        table = _run(app, CHARACTERS_PROGRAM, asked, dict,
                     'no text written in Traditional characters but the cards\' spellings')
        if table is None:
            return {}
        data = {'config': CHARACTERS_CONFIG, 'table': table}
        with contextlib.suppress(OSError):  # not kept: the next build converts them again
            write_if_changed(path, json.dumps(data, ensure_ascii=False, sort_keys=True))
    used = set(used)
    # one character each (a damaged file's longer one would shift the script's pairs)
    return {other: own for other, own in sorted(data['table'].items())
            if isinstance(own, str) and len(other) == len(own) == 1 and own in used}


def _convert(app: Sphinx, wanted: tuple[str, ...], names: list[str]) -> list[list[str]] | None:
    """*names* converted by OpenCC in a process of its own, or None (a note says why)."""
    out = _run(app, PROGRAM, {'configs': list(wanted), 'names': names}, list,
               'the cards by the spellings the registry and the pages give, not in the other '
               'script too')
    return out if out is not None and len(out) == len(names) else None


def _run(app: Sphinx, program: str, asked: dict, kind: type, finds: str) -> Any:
    """What *program* answers to *asked* (JSON both ways), run by OpenCC's
    process of its own, if it is a *kind*; else None, and a note says why
    (the search then *finds* what it says)."""
    try:
        done = subprocess.run([sys.executable, '-c', program],
                              input=json.dumps(asked, ensure_ascii=False).encode(),
                              capture_output=True, timeout=300, check=False)
        if done.returncode == 0:
            out = json.loads(done.stdout.decode())
            if isinstance(out, kind):
                return out
        why = done.stderr.decode(errors='replace').strip().splitlines()[-1:] or ['no answer']
    except (OSError, ValueError, subprocess.SubprocessError) as err:
        why = [str(err)]
    reports.note(f'the search finds {finds}: OpenCC did not run ({why[0]}); install '
                 f'the project\'s requirements (pip install -r requirements.txt)',
                 location=None, subtype='search-scripts', config=app.config)
    return None
