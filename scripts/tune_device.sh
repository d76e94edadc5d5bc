#!/usr/bin/env bash
# Tunes the GPU of this machine in two device calls (each inside the lent GPU's 10-minute limit),
# writing everything into $OUT (or tune-out/): the commands of tuner/data/h100/README.md.
#
#   scripts/tune_device.sh 1     round 1: sample, time (~6.5 min), train the round-1 model (~2 min
#                                on one core) and sample round 2 from it (its favourites are
#                                what round 2 measures)
#   scripts/tune_device.sh 2     round 2: time round 2's samples (~5 min), train on both rounds
#                                (~3 min), export into $OUT/models/<key>
#   scripts/tune_device.sh eval  the exported model on held-out shapes against the brute-force
#                                oracle and cuBLAS (~2 min; fits beside scripts/gpu_check.sh)
#
# Rounds 2 and eval need the earlier files (TUNE_IN=<folder with them>, default $OUT).
# Environment: BUILD_DIR (build), R1_MINUTES (6.5), R2_MINUTES (5), EVAL_MINUTES (2), SEED (7).
set -euo pipefail
cd "$(dirname "$0")/.."
T=${BUILD_DIR:-build}/bin/ptxblas-tune
OUTDIR=${OUT:-tune-out}
IN=${TUNE_IN:-$OUTDIR}
mkdir -p "$OUTDIR"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
key=$(echo "$name" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')-sm$cc
echo "device: $name (sm_$cc), key $key"
train=(--hidden 32 64 32 --epochs 300 --batch 32)

case "${1:-}" in
  1)
    "$T" sample --count 30000 --seed "${SEED:-7}" --device-key "$key" --out "$OUTDIR/samples-1.csv"
    "$T" bench --samples "$OUTDIR/samples-1.csv" --out "$OUTDIR/dataset-1.csv" --minutes "${R1_MINUTES:-6.5}" --min-ms 3
    "$T" train --data "$OUTDIR/dataset-1.csv" "${train[@]}" --out "$OUTDIR/round1-model"
    "$T" sample --count 16000 --seed 11 --per-problem 12 --neighbours 3 --model "$OUTDIR/round1-model" \
      --model-top 4 --device-key "$key" --out "$OUTDIR/samples-2.csv"
    ;;
  2)
    "$T" bench --samples "$IN/samples-2.csv" --out "$OUTDIR/dataset-2.csv" --minutes "${R2_MINUTES:-5}" --min-ms 3
    "$T" train --data "$IN/dataset-1.csv" "$OUTDIR/dataset-2.csv" "${train[@]}" --out "$OUTDIR/trained"
    "$T" export --model "$OUTDIR/trained" --device-name "$name" --sm "$cc" --models-dir "$OUTDIR/models"
    ;;
  eval)
    "$T" eval --model "$IN/models/$key" --shapes testing/bench/model_eval_shapes.txt \
      --out "$OUTDIR/model-eval.csv" --minutes "${EVAL_MINUTES:-2}"
    ;;
  *)
    echo "usage: $0 1|2|eval" >&2
    exit 2
    ;;
esac
