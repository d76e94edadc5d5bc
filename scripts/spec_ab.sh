#!/usr/bin/env bash
# On the lent GPU machine, with build/bin carried: forced plans of a few shapes timed as the
# benchmark's columns are (sustained blocks of calls, not the oracle search's 5-call bursts, which
# run power-limited f64 / c64 kernels faster and move by several percent between bursts), each
# plan alone in the oracle column of its own ptxblas-bench run, ROUNDS (3) rounds in turn.
#   ROUNDS=3 scripts/spec_ab.sh SPEC_FILE OUTDIR
# SPEC_FILE: "shape: T A B M N K NAME" lines (suite format), each followed by "spec: ..." lines
# (ptxblas_force_tile specs). Prints per shape, per spec, every round's TFLOP/s and their median
# beside cuBLAS's median from the same runs; the runs' CSVs and logs stay in OUTDIR. A spec slower
# than the dispatcher's plan shows that plan's time (the oracle column's fallback) and, after
# "lost:", its own kernel and search-burst TFLOP/s (from the oracle log).
set -euo pipefail
cd "$(dirname "$0")/.."
file=$1 out=$2
rounds=${ROUNDS:-3}
mkdir -p "$out"
: >"$out/results.csv"
shapes=() specs=()
while IFS= read -r l; do
  case "$l" in
    shape:*) shapes+=("${l#shape: }") ;;
    spec:*) specs+=("${#shapes[@]}|${l#spec: }") ;;
  esac
done <"$file"
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < ${#specs[@]}; i++)); do
    s=${specs[$i]} shape=${shapes[$((${specs[$i]%%|*} - 1))]} spec=${specs[$i]#*|}
    echo "$shape" >"$out/shape.suite"
    csv="$out/run-$r-$i.csv"
    log="$out/log-$r-$i.csv"
    if build/bin/ptxblas-bench --suite "$out/shape.suite" --oracle-ms 600000 --oracle-specs "$spec" --csv "$csv" \
      --oracle-log "$log" --seed 1 >"$out/run-$r-$i.txt" 2>&1; then
      python3 - "$csv" "$r" "$spec" "$log" >>"$out/results.csv" <<'PY'
import csv, os, sys
own = ""  # the forced spec's own kernel and burst TFLOP/s
if os.path.exists(sys.argv[4]):
    for row in csv.reader(open(sys.argv[4])):
        own = f"{row[8]} {float(row[10]):.2f}"
for x in csv.DictReader(open(sys.argv[1])):
    cfg = x['oracle_config'] + (f" lost: {own}" if "dispatcher's plan" in x['oracle_config'] and own else "")
    print(f"{x['type']} {x['name']},{sys.argv[3]},{sys.argv[2]},{x['oracle_tflops']},{x['cublas_tflops']},{cfg}")
PY
    else
      echo "failed: $shape / $spec"
    fi
  done
done
python3 - "$out/results.csv" <<'PY'
import collections, csv, statistics, sys
rows = collections.OrderedDict()
for shape, spec, r, tf, cub, cfg in csv.reader(open(sys.argv[1])):
    rows.setdefault(shape, collections.OrderedDict()).setdefault(spec, []).append((float(tf or "nan"), float(cub), cfg))
for shape, by_spec in rows.items():
    cub = statistics.median(c for v in by_spec.values() for _, c, _ in v)
    print(f"== {shape}: cublas {cub:.2f}")
    for spec, v in by_spec.items():
        tfs = [t for t, _, _ in v]
        print(f"   {statistics.median(tfs):7.2f} ({' '.join(f'{t:.2f}' for t in tfs)})  [{spec}] {v[0][2]}")
PY
