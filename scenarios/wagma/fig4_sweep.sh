#!/usr/bin/env bash
# WAGMA Fig. 4: runs fig4_resnet50.json on 4 to 256 Piz Daint nodes and prints one table (written as CSV too).
# Usage: scenarios/wagma/fig4_sweep.sh [OUT_DIR] [extra quorum run options, e.g. --set workload.iterations=100]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-results/wagma_fig4_sweep}
shift || true
for nodes in 4 8 16 32 64 128 256; do
  ./build/quorum run scenarios/wagma/fig4_resnet50.json --set platform.nodes="$nodes" --set output.progress=false \
    --out "$out/nodes_$nodes" "$@" >/dev/null
  echo "nodes $nodes done" >&2
done
./scripts/summarize-results "$out"/nodes_* --csv "$out/sweep.csv"
