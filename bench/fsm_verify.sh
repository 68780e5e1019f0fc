#!/usr/bin/env bash
# Large-K exhaustive check of hirace's state machine (minutes; the test suite runs K<=4).
# Appends each run's summary to bench/results/fsm_verification.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results/fsm_verification.txt
for spec in "${@:-2x2x2:6}"; do
  grid=${spec%%:*}; k=${spec##*:}
  { echo "== $(date -u +%F) hirace verify-fsm --grid $grid --events $k"; .venv/bin/hirace verify-fsm --grid "$grid" --events "$k"; } | tee -a "$out"
done
