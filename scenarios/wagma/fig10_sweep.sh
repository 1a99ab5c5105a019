#!/usr/bin/env bash
# WAGMA Fig. 10: runs fig10_ppo.json on 16 to 1,024 Piz Daint nodes and prints one table (written as CSV too).
# Usage: scenarios/wagma/fig10_sweep.sh [OUT_DIR] [extra quorum run options, e.g. --set workload.iterations=100]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-results/wagma_fig10_sweep}
shift || true
for nodes in 16 32 64 128 256 512 1024; do
  ./build/quorum run scenarios/wagma/fig10_ppo.json --set platform.nodes="$nodes" --set output.progress=false \
    --out "$out/nodes_$nodes" "$@" >/dev/null
  echo "nodes $nodes done" >&2
done
./scripts/summarize-results "$out"/nodes_* --csv "$out/sweep.csv"
