#!/usr/bin/env bash
# The epoch mutant (issue 22): THE write of a room (server/store/rooms.py, write_rooms)
# with the owner's epoch dropped, both from the decision and from the conditional UPDATE.
# The fencing tests must fail on it; this prints which did. Not part of the test command.
#   bash scripts/mutant_epoch.sh [pytest arguments]   (default: the fencing tests)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$tmp"
"$root/.venv/bin/python" - "$tmp/server/store/rooms.py" <<'PY'
import pathlib, sys
path = pathlib.Path(sys.argv[1])
text = path.read_text()
for old, new in [
    ("if held.get(w.room.id) != (w.room.version - 1, w.epoch):",
     "if held.get(w.room.id, (None,))[0] != w.room.version - 1:"),
    ('            rooms.c.epoch == bindparam("b_epoch"),\n', ""),
]:
    assert old in text, old
    text = text.replace(old, new)
path.write_text(text)
PY
if [ $# -eq 0 ]; then
    set -- tests/server/test_server_db.py tests/server/test_room_rebuild.py
fi
cd "$tmp"
if "$root/.venv/bin/python" -m pytest -q -p no:cacheprovider "$@"; then
    echo "the epoch mutant SURVIVED: the tests do not exercise the fence" >&2
    exit 1
fi
echo "the epoch mutant was killed: the fence is exercised"
