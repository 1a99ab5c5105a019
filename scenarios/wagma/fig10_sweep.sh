#!/usr/bin/env bash
# WAGMA Fig. 10: runs fig10_ppo.json on 16 to 1,024 Piz Daint nodes and prints one table (written as CSV too).
# Usage: scenarios/wagma/fig10_sweep.sh [OUT_DIR] [extra quorum run options, e.g. --set workload.iterations=50]
set -euo pipefail
cd "$(dirname "$0")/../.."
exec ./scripts/sweep-nodes scenarios/wagma/fig10_ppo.json "${1:-results/wagma_fig10_sweep}" \
  "16 32 64 128 256 512 1024" "${@:2}"
