"""What the browser is sent of each catalog (issue 28's bytes goal).

A catalog stays one file per language for the translator (``client/i18n/<tag>.json``,
notes and all), which the server words its own texts from. The browser is sent two
files derived from it, built once per file version, never written to disk:

- ``/static/i18n/<tag>.json``: the texts the client's modules say (its screens, the offline
  page, the offline game's refusals), without the translator's notes, without the texts
  only the server says (its error messages, the pushes' words, the manifest, the 404 page's
  link) and without the two reading pages' long texts. Read before the first screen.
- ``/static/i18n/reading/<tag>.json``: the reading pages' texts ("Cómo se juega", "Sobre el
  casino"), fetched when a reading page or the table's help opens (and kept by the service
  worker with the offline kit, so that they open offline too).

tests/test_catalogs.py checks both ways that the lists below are the client's: every key a
client module names is sent to the browser, and every key sent is named by one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

# the texts only the server says: its error messages (the client shows the message the
# server sent), the pushes' titles and bodies (server/push), the manifest's name
# (static.py), the link of the pages it renders itself (pages.py), how it joins a list in a
# refusal (list.*: the browser asks Intl.ListFormat)
SERVER_ONLY = re.compile(
    r"error\..*|list\..*|push\.(turn|join|rematch)\..*|manifest\..*|page\.home"
)
# ... but the offline game words these refusals itself (client/js/lib/localroom.js), as the
# server would
OFFLINE_ERRORS = frozenset(
    {"error.not_your_turn", "error.match_over", "error.bad_request", "error.not_over"}
)
# the reading pages' texts (client/js/ui/texts.js), a file of their own
READING = frozenset({"pages.how_to_play.html", "pages.about.html"})


def is_note(key: str) -> bool:
    """A note for the translator (``@key``, ``@@note``...), not a text."""
    return key.startswith("@")


def for_screens(key: str) -> bool:
    """Whether the browser's first file holds ``key``."""
    if is_note(key) or key in READING:
        return False
    return key in OFFLINE_ERRORS or not SERVER_ONLY.fullmatch(key)


def browser_parts(data: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """A catalog as the browser fetches it: ``"screens"`` (read before the first screen)
    and ``"reading"`` (the reading pages)."""
    return {
        "screens": {k: v for k, v in data.items() if for_screens(k)},
        "reading": {k: v for k, v in data.items() if k in READING},
    }


def compact(words: Mapping[str, Any]) -> bytes:
    """JSON with no layout (the files' one key a line is for the translator)."""
    return json.dumps(words, ensure_ascii=False, separators=(",", ":")).encode()
