#!/usr/bin/env bash
# The real-GPU table of docs/PERFORMANCE.md ("On a real GPU"): `throng bench` on the baked GPU
# path at 10,000, 100,000 and 1,000,000 agents, LOD presets off, balanced and aggressive,
# Vulkan, with the defaults of a GPU run (30 measured frames after 5 of warm-up, 960x540) but at
# 1,000,000, where 5 frames after 1 of warm-up (a data-centre GPU such as the H200 rasterises
# slowly: 0.63 s a frame at 100,000 with LOD off).
#
# Each count is its own bench run with its own folder (OUT/N/), so that a count that runs out
# of time loses only its own results. When time is left after the GPU path (BUDGET seconds in
# all, default 300), the static floor runs at the same counts (the animation cost on a real
# GPU), then GL's GPU path.
#
#   tools/gpu-bench.sh [OUT]          THRONG=path/to/throng (default target/release/throng)
set -uo pipefail
bin=${THRONG:-target/release/throng}
out=${1:-bench-gpu}
budget=${BUDGET:-300}
mkdir -p "$out"

# One bench run: NAME, a cap in seconds, then bench's own flags. Skipped once the budget is
# spent; cut off at whichever comes first, the cap or the budget.
run() {
  local name=$1 cap=$2
  shift 2
  local left=$((budget - SECONDS))
  if ((left < 20)); then
    echo "== $name: skipped, ${left}s of the budget left"
    return
  fi
  ((cap > left)) && cap=$left
  echo "== $name (at most ${cap}s), started at ${SECONDS}s"
  timeout "$cap" "$bin" bench -q --out "$out/$name" "$@"
  echo "== $name: exit $? at ${SECONDS}s"
}

common=(--lod off,balanced,aggressive --frames 30 --warmup 5 --size 960x540)
run gpu-10000 60 --instances 10000 --skinning gpu --backend vulkan "${common[@]}"
run gpu-100000 90 --instances 100000 --skinning gpu --backend vulkan "${common[@]}"
run gpu-1000000 150 --instances 1000000 --skinning gpu --backend vulkan \
  --lod off,balanced,aggressive --frames 5 --warmup 1 --size 960x540
run static 60 --instances 10000,100000 --skinning static --backend vulkan "${common[@]}"
run gl-gpu 30 --instances 10000 --skinning gpu --backend gl "${common[@]}"
