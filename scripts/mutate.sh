#!/usr/bin/env bash
# Mutation testing of the engine (scoring, match, moves), the computer players and the
# protocol's parsing, with mutmut 3 (configured in pyproject.toml, [tool.mutmut]).
# Not run in CI: it takes a long while (a full run is ~2,200 mutants, most of them run the
# engine's whole in-process suite). Run it before calling an issue that touches those files
# resolved, and put the score per file it prints in the closing note.
#
#   bash scripts/mutate.sh                          # fresh run of every mutant, then scores
#   bash scripts/mutate.sh 'server.engine.moves.*'  # fresh run of the mutants named so
#   bash scripts/mutate.sh --rest ['PATTERN' ...]   # go on: run again what is not killed yet
#                                                   # (survivors, not run), with the current tests
#   bash scripts/mutate.sh --scores                 # the scores of the last run, and survivors
#
# Mutant names are module.function__mutmut_N (e.g. server.protocol.x_parse_client__mutmut_3);
# `.venv/bin/mutmut show NAME` prints one's diff. MUTATE_CHILDREN (default 2) sets how many
# run at once; every run is `nice`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    bash scripts/setup.sh
fi
if ! .venv/bin/python -c 'import mutmut' 2>/dev/null; then
    .venv/bin/python -m pip install -q -e ".[test,mutation]"
fi
children=${MUTATE_CHILDREN:-2}
mode=fresh
case "${1:-}" in
    --rest) mode=rest; shift ;;
    --scores) mode=scores; shift ;;
esac

if [ "$mode" = fresh ]; then
    rm -rf mutants
    nice -n 10 .venv/bin/mutmut run --max-children "$children" "$@"
elif [ "$mode" = rest ]; then
    mapfile -t names < <(.venv/bin/python scripts/mutation_scores.py --to-run "$@")
    if [ "${#names[@]}" -gt 0 ]; then
        # mutmut copies the current tests in; which test reaches which function is
        # collected again, so that new tests are run too
        rm -f mutants/mutmut-stats.json
        nice -n 10 .venv/bin/mutmut run --max-children "$children" "${names[@]}"
    fi
fi
.venv/bin/python scripts/mutation_scores.py --survivors
