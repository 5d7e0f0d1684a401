"""The client's modules as a phone downloads them: without comments and spare spaces.

The modules are written for people: JSDoc types, the why of each rule, the rule book's
section numbers. That is about 40% of their bytes after gzip, and a phone on a prepaid plan
pays for every one of them. The server serves each module through rjsmin (a well-kept
minifier that removes comments and whitespace and nothing else: names, strings, template
literals and regular expressions are kept as written), once per version of the file, as it
derives the catalogs' parts. ``CLIENT_JS=source`` serves the files as written (to read a
stack trace against the source).

tests/rest/test_lean_js.py parses every module and its lean form with TypeScript's parser and
requires the two syntax trees to be the same."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import rjsmin

_lean: dict[tuple[str, int, int], tuple[bytes, str]] = {}


def lean_source(text: str) -> str:
    """A module's text without its comments and the whitespace the language does not need
    (a newline that ends a statement is kept)."""
    lean: str = rjsmin.jsmin(text)
    return lean


def lean_file(path: Path, stat_result: os.stat_result) -> tuple[bytes, str]:
    """The lean form of the module at ``path`` and its ETag, made once per version of the
    file (its modification time and size)."""
    key = (str(path), stat_result.st_mtime_ns, stat_result.st_size)
    found = _lean.get(key)
    if found is None:
        body = lean_source(path.read_text(encoding="utf-8")).encode()
        found = body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        for old in [k for k in _lean if k[0] == key[0]]:
            del _lean[old]
        _lean[key] = found
    return found
