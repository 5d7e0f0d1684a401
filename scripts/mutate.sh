#!/usr/bin/env bash
# Mutation testing of the engine (scoring, match, moves), the computer players and the
# protocol's parsing, with mutmut 3 (configured in pyproject.toml, [tool.mutmut]).
# Not run in CI: it takes minutes. Run it before calling an issue that touches those files
# resolved, and put the score per file it prints in the closing note.
#
#   bash scripts/mutate.sh                 # fresh run of every mutant, then the scores
#   bash scripts/mutate.sh --survivors     # re-run only the mutants that survived last time
#   bash scripts/mutate.sh --scores        # print the scores of the last run, run nothing
#   bash scripts/mutate.sh 'server.engine.scoring*'   # a fresh run of some mutants only
#
# MUTATE_CHILDREN (default 2) sets how many mutants run at once; every run is `nice`.
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
    --survivors) mode=survivors; shift ;;
    --scores) mode=scores; shift ;;
esac

if [ "$mode" = fresh ]; then
    rm -rf mutants
    nice -n 10 .venv/bin/mutmut run --max-children "$children" "$@"
elif [ "$mode" = survivors ]; then
    mapfile -t names < <(.venv/bin/mutmut results | sed -n 's/^ *\([^:]*\): survived$/\1/p')
    if [ "${#names[@]}" -gt 0 ]; then
        # mutmut copies the current tests in; forget which tests reach which function
        rm -f mutants/mutmut-stats.json
        nice -n 10 .venv/bin/mutmut run --max-children "$children" "${names[@]}"
    fi
fi
.venv/bin/python scripts/mutation_scores.py
