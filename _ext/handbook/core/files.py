"""Files the handbook writes beside the pages, written only when their content changes.

A file whose bytes are the same keeps its modification time, so that what
watches or uploads the output folder by date sees only real changes (see
:mod:`handbook.publishing.unchanged_files` for Sphinx's own files).
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def write_if_changed(path: Path, content: str | bytes) -> bool:
    """Write *content* (text as UTF-8) to *path* unless the file holds it
    already; whether it wrote."""
    data = content.encode('utf-8') if isinstance(content, str) else content
    with contextlib.suppress(OSError):
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True
