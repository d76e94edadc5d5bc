#!/usr/bin/env bash
# Tunes a GPU in steps: the two timing steps need the GPU (each fits one 10-minute call on the
# lent machine); sampling and training run on any machine (training is single-threaded, ~1 min per
# 30000 rows), so the GPU's time goes to timing. Files go to $OUT (or tune-out/); steps after the
# first read the earlier files from TUNE_IN (default: the same folder).
#
#   scripts/tune_device.sh sample1   round 1's problems and configurations (any machine)
#   scripts/tune_device.sh bench1    time them (GPU, R1_MINUTES, default 8)
#   scripts/tune_device.sh train1    round-1 model; round 2 samples its favourites (any machine)
#   scripts/tune_device.sh bench2    time round 2 (GPU, R2_MINUTES, default 7)
#   scripts/tune_device.sh train2    train on both rounds, export into $OUT/models/<key> (any machine)
#   scripts/tune_device.sh eval      the exported model on held-out shapes against the brute-force
#                                    oracle and cuBLAS (GPU, EVAL_MINUTES, default 2)
#   scripts/tune_device.sh 1 | 2     sample1+bench1+train1 | bench2+train2, all on the GPU machine
#
# The device key comes from nvidia-smi, or from DEVICE_NAME and SM (e.g. 90) where there is no GPU.
# Environment: BUILD_DIR (build), SEED (7), R1_COUNT (30000), R2_COUNT (16000).
set -euo pipefail
cd "$(dirname "$0")/.."
T=${BUILD_DIR:-build}/bin/ptxblas-tune
OUTDIR=${OUT:-tune-out}
IN=${TUNE_IN:-$OUTDIR}
mkdir -p "$OUTDIR"
if [[ -n "${DEVICE_NAME:-}" ]]; then
  name=$DEVICE_NAME; cc=${SM:?SM (compute capability, e.g. 90) goes with DEVICE_NAME}
else
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
fi
key=$(echo "$name" | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')-sm$cc
echo "device: $name (sm_$cc), key $key"
train=(--hidden 32 64 32 --epochs 300 --batch 32)

step() {
  case "$1" in
    sample1)
      "$T" sample --count "${R1_COUNT:-30000}" --seed "${SEED:-7}" --device-key "$key" \
        --out "$OUTDIR/samples-1.csv" ;;
    bench1)
      "$T" bench --samples "$IN/samples-1.csv" --out "$OUTDIR/dataset-1.csv" \
        --minutes "${R1_MINUTES:-8}" --min-ms 3 ;;
    train1)
      "$T" train --data "$IN/dataset-1.csv" "${train[@]}" --out "$OUTDIR/round1-model"
      "$T" sample --count "${R2_COUNT:-16000}" --seed 11 --per-problem 12 --neighbours 3 \
        --model "$OUTDIR/round1-model" --model-top 4 --device-key "$key" --out "$OUTDIR/samples-2.csv" ;;
    bench2)
      "$T" bench --samples "$IN/samples-2.csv" --out "$OUTDIR/dataset-2.csv" \
        --minutes "${R2_MINUTES:-7}" --min-ms 3 ;;
    train2)
      "$T" train --data "$IN/dataset-1.csv" "${DATASET2:-$IN/dataset-2.csv}" "${train[@]}" --out "$OUTDIR/trained"
      "$T" export --model "$OUTDIR/trained" --device-name "$name" --sm "$cc" --models-dir "$OUTDIR/models" ;;
    eval)
      "$T" eval --model "$IN/models/$key" --shapes testing/bench/model_eval_shapes.txt \
        --out "$OUTDIR/model-eval.csv" --minutes "${EVAL_MINUTES:-2}" ;;
    *)
      echo "usage: $0 sample1|bench1|train1|bench2|train2|eval|1|2" >&2
      exit 2 ;;
  esac
}

case "${1:-}" in
  1) IN=$OUTDIR; step sample1; step bench1; step train1 ;;
  2) step bench2; DATASET2=$OUTDIR/dataset-2.csv step train2 ;;
  *) step "${1:-}" ;;
esac
