#!/usr/bin/env bash
# On the lent GPU machine, from the repository root with build/bin carried: ncu over ptxblas's and
# cuBLAS's kernels for a few GEMM shapes of the suite, one ptxblas-bench process per shape
# (dispatcher's plan, a few calls each; after " | " a ptxblas_force_tile spec, the oracle column's
# plan, run too as the bench's only oracle candidate), then scripts/ncu_summary.py's table per shape.
#   scripts/ncu_shapes.sh OUTDIR "S TN 2560 128 2560 deepbench-b-128" ["D TN ... | mma 64 64 8 32 32 1 3 0 4" ...]
# Clocks are left alone (--clock-control none); caches as the benchmark leaves them.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
mkdir -p "$out"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,launch__registers_per_thread,launch__grid_size,launch__block_size,launch__waves_per_multiprocessor
metrics+=,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
metrics+=,'regex:^sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$'
metrics+=,'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$'
for arg in "$@"; do
  shape=${arg%% | *}
  oracle=()
  [[ $arg == *" | "* ]] && oracle=(--oracle-ms 1 --oracle-specs "${arg#* | }")
  name=$(echo "$shape" | awk '{print $1 "-" $NF}')
  echo "$shape" >"$out/$name.suite"
  timeout "${NCU_TIMEOUT:-120}" "$ncu" --clock-control none --cache-control none --metrics "$metrics" --csv \
    build/bin/ptxblas-bench --suite "$out/$name.suite" --reps 2 --warmup 1 --seed 1 "${oracle[@]}" \
    >"$out/$name.csv" 2>"$out/$name.err" || { echo "ncu failed on $shape"; tail -5 "$out/$name.err"; continue; }
  python3 scripts/ncu_summary.py "$out/$name.csv" "$arg"
done
