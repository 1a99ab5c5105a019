#!/usr/bin/env bash
# WAGMA Fig. 4: runs fig4_resnet50.json on 4 to 256 Piz Daint nodes and prints one table (written as CSV too).
# Usage: scenarios/wagma/fig4_sweep.sh [OUT_DIR] [extra quorum run options, e.g. --set workload.iterations=100]
set -euo pipefail
cd "$(dirname "$0")/../.."
exec ./scripts/sweep-nodes scenarios/wagma/fig4_resnet50.json "${1:-results/wagma_fig4_sweep}" \
  "4 8 16 32 64 128 256" "${@:2}"
