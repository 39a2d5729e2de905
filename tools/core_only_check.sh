#!/usr/bin/env bash
# A core-only install (no extras) runs the harness on a third-party adapter: a fresh venv,
# `pip install -e .` and the example adapter, neither SynthWorld nor the OpenAI client, and
# the example's whole cycle to an ADMISSIBLE verdict. Used by `make core-check` and CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$python -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet -e "$root" -e "$root/examples/lamps"
for module in synthworld openai; do
  if "$work/venv/bin/python" -c "import $module" 2>/dev/null; then
    echo "core-check: $module is importable in a core-only install" >&2; exit 1
  fi
done
cd "$work"
aa="$work/venv/bin/agent-assay"
"$aa" adapters list
"$aa" check-adapter lamps
run=$("$aa" run --adapter lamps --config careful --repeats 3 --db lamps.db 2>/dev/null)
"$aa" controls run --adapter lamps --run "$run" --db lamps.db
"$aa" report "$run" --db lamps.db | grep -q "^ADMISSIBLE -- " || { echo "core-check: not admissible" >&2; exit 1; }
echo "core-check: a core-only install certified the example adapter (run $run)"
