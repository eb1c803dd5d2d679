"""An in-memory memo of parsed data files, keyed by what was built from the
file (`kind`), its absolute path, size and modification time, plus any extra
key parts. It reads only the file's `os.stat`; nothing is written to disk."""

import os

_MEMO = {}


def clear_cache():
    """Forget the in-memory parses (PTB char alone holds about 60 MB)."""
    _MEMO.clear()


def memo(kind, path, build, *extra):
    stat = os.stat(path)
    key = (kind, os.path.abspath(path), stat.st_size, stat.st_mtime_ns) + extra
    if key not in _MEMO:
        _MEMO[key] = build()
    return _MEMO[key]
