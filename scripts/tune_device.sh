#!/usr/bin/env bash
# Tunes a GPU in rounds. Only `bench` needs the GPU (one round fits one 10-minute call on the lent
# machine); sampling and training run on any machine (training is single-threaded, ~1 min per
# 30000 rows), so the GPU's time goes to timing. Files go to $OUT (or tune-out/); later steps read
# the earlier files from TUNE_IN (default: the same folder).
#
#   scripts/tune_device.sh sample 1   round 1: per problem the heuristic's pick, its neighbours and
#                                     draws of the categorical model (problems log-uniform)
#   scripts/tune_device.sh sample 2   round 2: the round-1 model's favourites join them
#   scripts/tune_device.sh sample 3   round 3: the round-2 model's favourites on large problems
#                                     (>= 10 GFLOP), where few log-uniform problems land and the
#                                     model extrapolated to tiles never measured there
#   scripts/tune_device.sh sample 4   round 4: the cp.async stages (3, 4) for S, D, C, Z: the
#                                     heuristic's pick and the round-3 model's 3 favourites, each
#                                     with every stage count, on new log-uniform problems
#   scripts/tune_device.sh sample 5   round 5: the round-4 model's 4 favourites with their stage
#                                     variants on S, D, C, Z problems of at least 5 GFLOP (its
#                                     large-problem picks were wrong upwards: Z 2048^3 0.53x)
#   scripts/tune_device.sh sample 6   round 6: the same on log-uniform problems, from round 5's model
#   scripts/tune_device.sh sample 7   round 7: the same for C and Z only (the round-6 model's
#                                     complex picks were 0.88 of the oracle, D's and S's 0.98-1.01)
#   scripts/tune_device.sh sample 8   round 8: the round-6 model's favourites on S, D, C, Z
#                                     log-uniform problems (the bundled model: `train 8`, five members)
#   scripts/tune_device.sh sample 9   round 9: the round-8 ensemble's (the bundled model's)
#                                     favourites with their stage variants, all six types (kept,
#                                     not bundled: perf notes §83)
#   scripts/tune_device.sh sample N   N >= 10: the round-(N-1) model's favourites on new
#                                     log-uniform problems (RN_COUNT rows, default 12000)
# Rounds 2-8 of the H100 data were sampled from single networks: MEMBERS=1 for `train 1`..`train 7`
# reproduces them; the bundled model is `train 8` with the default five.
#   scripts/tune_device.sh bench N    time round N's samples (GPU; BENCH_MINUTES, default 8)
#   scripts/tune_device.sh remeasure N  the rows of rounds 1..N that dispatch runs lowered (f32
#                                     vector stages) as samples-lowered.csv (CPU; perf notes §83)
#   scripts/tune_device.sh bench-lowered  time them as dispatch runs them (GPU) into
#                                     dataset-lowered.csv, which `train` then reads last, so its
#                                     rows replace the earlier measurements of the same tunings
#   scripts/tune_device.sh train N    the round-N model, from the rows of rounds 1..N
#   scripts/tune_device.sh export N   install the round-N model into $OUT/models/<key>
#   scripts/tune_device.sh eval       the exported model on held-out shapes against the brute-force
#                                     oracle and cuBLAS (GPU, EVAL_MINUTES, default 2)
#
# The device key comes from nvidia-smi, or from DEVICE_NAME and SM (e.g. 90) where there is no GPU.
# Environment: BUILD_DIR (build), SEED (7), R1_COUNT (30000), R2_COUNT (24000), R3_COUNT (12000), R4_COUNT (16000),
# R5_COUNT (10000), R6_COUNT (12000), R7_COUNT (10000), R8_COUNT (12000), R9_COUNT (12000),
# MEMBERS (5: networks in the ensemble `train` makes; 1: a single network),
# TRUST_MARGIN (0.1, written by export; 0.5 suits a single network), RANK_WEIGHT (0: plain MSE;
# 16 adds the within-problem error, perf notes §100). §101's candidate (not bundled) is
# `RANK_WEIGHT=16 ... train 8`, then `ptxblas-tune merge` with the bundled model and `export`.
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
train=(--hidden 32 64 32 --epochs 300 --batch 32 --members "${MEMBERS:-5}" --rank-weight "${RANK_WEIGHT:-0}")

round=${2:-}
[[ "$round" =~ ^[1-9][0-9]*$ || "${1:-}" == eval || "${1:-}" == bench-lowered ]] ||
  { echo "round must be a number >= 1" >&2; exit 2; }
# Rounds 4-7: count, seed, the earlier round whose model's favourites join, how many, types, then
# extra options; every pick also with each other stage count (--stage-variants).
stage_round() {
  local count=$1 seed=$2 from=$3 top=$4 types=$5
  shift 5
  "$T" sample --count "$count" --seed "$seed" --per-problem 14 --neighbours 1 --model "$IN/round$from-model" \
    --model-top "$top" --stage-variants --types "$types" "$@" --device-key "$key" --out "$OUTDIR/samples-$round.csv"
}
datasets() { for ((r = 1; r <= round; ++r)); do echo "$IN/dataset-$r.csv"; done; }
# Training's files: rounds 1..N, then the re-measured lowered rows where they exist (read last, so
# they replace the earlier measurements of the same tunings).
training_data() {
  datasets
  if [[ -f "$IN/dataset-lowered.csv" ]]; then echo "$IN/dataset-lowered.csv"; fi
}

case "${1:-}" in
  sample)
    case "$round" in
      1) "$T" sample --count "${R1_COUNT:-30000}" --seed "${SEED:-7}" --device-key "$key" --out "$OUTDIR/samples-1.csv" ;;
      2) "$T" sample --count "${R2_COUNT:-24000}" --seed 11 --per-problem 12 --neighbours 3 --model "$IN/round1-model" \
           --model-top 4 --device-key "$key" --out "$OUTDIR/samples-2.csv" ;;
      3) "$T" sample --count "${R3_COUNT:-12000}" --seed 13 --per-problem 8 --neighbours 2 --model "$IN/round2-model" \
           --model-top 4 --min-gflop 10 --device-key "$key" --out "$OUTDIR/samples-3.csv" ;;
      4) stage_round "${R4_COUNT:-16000}" 14 3 3 SDCZ ;;
      5) stage_round "${R5_COUNT:-10000}" 15 4 4 SDCZ --min-gflop 5 ;;
      6) stage_round "${R6_COUNT:-12000}" 16 5 4 SDCZ ;;
      7) stage_round "${R7_COUNT:-10000}" 17 6 4 CZ ;;
      8) stage_round "${R8_COUNT:-12000}" 18 6 4 SDCZ ;;
      9) "$T" sample --count "${R9_COUNT:-12000}" --seed 19 --per-problem 12 --neighbours 1 --model "$IN/round8-model" \
           --model-top 4 --stage-variants --types SDCZHB --device-key "$key" --out "$OUTDIR/samples-9.csv" ;;
      *) "$T" sample --count "${RN_COUNT:-12000}" --seed $((10 + round)) --per-problem 8 --neighbours 2 \
           --model "$IN/round$((round - 1))-model" --model-top 4 --device-key "$key" --out "$OUTDIR/samples-$round.csv" ;;
    esac ;;
  bench)
    "$T" bench --samples "$IN/samples-$round.csv" --out "$OUTDIR/dataset-$round.csv" \
      --minutes "${BENCH_MINUTES:-8}" --min-ms 3 ;;
  remeasure)
    mapfile -t data < <(datasets)
    "$T" remeasure --data "${data[@]}" --out "$OUTDIR/samples-lowered.csv" ;;
  bench-lowered)
    "$T" bench --as-dispatched --samples "$IN/samples-lowered.csv" --out "$OUTDIR/dataset-lowered.csv" \
      --minutes "${BENCH_MINUTES:-8}" --min-ms 3 ;;
  train)
    mapfile -t data < <(training_data)
    "$T" train --data "${data[@]}" "${train[@]}" --out "$OUTDIR/round$round-model" ;;
  export)
    # A single network needs about two held-out standard errors (0.5 log2: at 0.15 the round-6
    # network's confident mistakes cost as much as its wins, perf notes §30); the five-network
    # ensemble's mean works at 0.1 (perf notes §82).
    "$T" export --model "$IN/round$round-model" --device-name "$name" --sm "$cc" --trust-margin "${TRUST_MARGIN:-0.1}" \
      --models-dir "$OUTDIR/models" ;;
  eval)
    "$T" eval --model "$IN/models/$key" --shapes testing/bench/model_eval_shapes.txt \
      --out "$OUTDIR/model-eval.csv" --minutes "${EVAL_MINUTES:-2}" ;;
  *)
    echo "usage: $0 sample|bench|remeasure|train|export N, or $0 bench-lowered|eval" >&2
    exit 2 ;;
esac
