#!/usr/bin/env bash
# On the lent GPU machine: two builds of libptxblas.so compared in one machine session, for
# changes smaller than the spread between machines (cuBLAS's own times move by up to 1.7x between
# two lent H100s). Each library needs its models/ folder beside it, as the build puts it.
#
#   scripts/ab_compare.sh A_LIB [B_LIB]      (B_LIB: build/bin/libptxblas.so)
#
# Alternating A and B, ROUNDS (3) times each:
#   - the level-3 suite (ptxblas-bench-blas3 over testing/bench/suite_blas3.txt, or $AB_BLAS3_SUITE);
#   - with AB_GEMM=1, the GEMM suite without the oracle (ptxblas-bench over $AB_GEMM_SUITE, default
#     testing/bench/suite_public.txt; $AB_GEMM_FILTER narrows it; AB_GEMM_BETA_ONE=1 times it with
#     beta = 1; $AB_MAX_MS sets --max-ms for it, default 200).
#   - with AB_BATCHED=1, strided-batched GEMM (ptxblas-bench-batched over $AB_BATCHED_SHAPES, default
#     its built-in rows; $AB_BATCHED_FILTER narrows them to a type), at beta 0 and, with
#     AB_BATCHED_BETA_ONE=1, at beta 1 too; AB_BATCHED_POINTERS=1 adds the same shapes as pointer
#     arrays (beta 0). $AB_MAX_MS sets --max-ms (default 30). Its tables key rows by layout too and
#     mark the rows whose kernel differs between A and B ("*"), with the geomean of B/A apart
#     for those and for the rest.
# AB_BLAS3=0 skips the level-3 suite and AB_LATENCY=0 the latency runs (e.g. for a batched-only A/B).
# Then first-call latency (ptxblas-bench-latency), each library with its own empty
# CUDA_CACHE_PATH, run twice: cold, then warm JIT cache.
# Two models with one library: AB_MODELS_A / AB_MODELS_B set PTXBLAS_MODEL_DIR for that side (a
# folder holding <device key>/model.toml), e.g. `AB_MODELS_B=tune/models scripts/ab_compare.sh
# build/bin/libptxblas.so`.
# Logs and CSVs go to $OUT/ab-results.tgz, also when a timeout stops the script (or to build/ab-logs
# without $OUT); ends with a summary:
# the median TFLOP/s of A and B per level-3 row (and GEMM row) with B / A, and the latency lines.
# Time on the H100 (3 rounds, latency included): the TRSM lines of the level-3 suite 52 s; the
# whole level-3 suite with AB_GEMM over suite_blas3_steps.txt 393 s. Narrow the suites to fit.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
[ $# -ge 1 ] || { sed -n '2,26p' "$0"; exit 2; }
A=$(realpath "$1")
B=$(realpath "${2:-build/bin/libptxblas.so}")
BIN=${BUILD_DIR:-build}/bin
ROUNDS=${ROUNDS:-3}
for lib in "$A" "$B"; do
  [ -f "$lib" ] || { echo "no library $lib"; exit 2; }
  [ -d "$(dirname "$lib")/models" ] || echo "warning: no models/ beside $lib (it will use the heuristic)"
done
if [ -n "${OUT:-}" ]; then logs=$(mktemp -d); else logs=build/ab-logs; mkdir -p "$logs"; fi
# Whatever ran reaches $OUT even when a timeout stops the script (a run cut short returned nothing).
if [ -n "${OUT:-}" ]; then
  trap 'mkdir -p "$OUT" && tar -czf "$OUT/ab-results.tgz" -C "$logs" .' EXIT
  trap 'exit 143' TERM INT
fi

lib_of() { if [ "$1" = A ]; then echo "$A"; else echo "$B"; fi; }
# `env` arguments of a side: its model folder, if one was given.
models_of() {
  local dir
  if [ "$1" = A ]; then dir=${AB_MODELS_A:-}; else dir=${AB_MODELS_B:-}; fi
  [ -z "$dir" ] || echo "PTXBLAS_MODEL_DIR=$(realpath "$dir")"
}

for ((r = 1; r <= ROUNDS; ++r)); do
  for side in A B; do
    lib=$(lib_of "$side")
    if [ "${AB_BLAS3:-1}" = 1 ]; then
      env $(models_of "$side") timeout -k 10 120 "$BIN/ptxblas-bench-blas3" --suite "${AB_BLAS3_SUITE:-testing/bench/suite_blas3.txt}" \
        --library "$lib" --csv "$logs/blas3-$side-$r.csv" >"$logs/blas3-$side-$r.log" 2>&1 ||
        echo "level-3 benchmark $side round $r: exit status $?"
    fi
    if [ "${AB_GEMM:-0}" = 1 ]; then
      gemm_args=(--suite "${AB_GEMM_SUITE:-testing/bench/suite_public.txt}" --library "$lib" --csv "$logs/gemm-$side-$r.csv")
      [ -n "${AB_GEMM_FILTER:-}" ] && gemm_args+=(--filter "$AB_GEMM_FILTER")
      [ "${AB_GEMM_BETA_ONE:-0}" = 1 ] && gemm_args+=(--beta-one)
      [ -n "${AB_MAX_MS:-}" ] && gemm_args+=(--max-ms "$AB_MAX_MS")
      env $(models_of "$side") timeout -k 10 240 "$BIN/ptxblas-bench" "${gemm_args[@]}" >"$logs/gemm-$side-$r.log" 2>&1 ||
        echo "GEMM benchmark $side round $r: exit status $?"
    fi
    if [ "${AB_BATCHED:-0}" = 1 ]; then
      runs=(b0)
      [ "${AB_BATCHED_BETA_ONE:-0}" = 1 ] && runs+=(b1)
      [ "${AB_BATCHED_POINTERS:-0}" = 1 ] && runs+=(ptr)
      for run in "${runs[@]}"; do
        batched_args=(--library "$lib" --max-ms "${AB_MAX_MS:-30}" --csv "$logs/batched-$run-$side-$r.csv")
        [ -n "${AB_BATCHED_SHAPES:-}" ] && batched_args+=(--shapes "$AB_BATCHED_SHAPES")
        [ -n "${AB_BATCHED_FILTER:-}" ] && batched_args+=(--filter "$AB_BATCHED_FILTER")
        [ "$run" = b1 ] && batched_args+=(--beta-one)
        [ "$run" = ptr ] && batched_args+=(--pointers)
        env $(models_of "$side") timeout -k 10 240 "$BIN/ptxblas-bench-batched" "${batched_args[@]}" \
          >"$logs/batched-$run-$side-$r.log" 2>&1 || echo "batched benchmark ($run) $side round $r: exit status $?"
      done
    fi
  done
done
latency_sides="A B"
[ "${AB_LATENCY:-1}" = 1 ] || latency_sides=""
for side in $latency_sides; do
  lib=$(lib_of "$side")
  cache=$(mktemp -d)
  for pass in cold warm; do
    env $(models_of "$side") CUDA_CACHE_PATH="$cache" timeout -k 10 120 "$BIN/ptxblas-bench-latency" --library "$lib" \
      >"$logs/latency-$side-$pass.txt" 2>&1 || echo "latency $side $pass: exit status $?"
  done
  rm -rf "$cache"
done
echo "A = $A $(models_of A)" >"$logs/libraries.txt"
echo "B = $B $(models_of B)" >>"$logs/libraries.txt"

python3 - "$logs" <<'PY'
import csv, glob, os, statistics, sys
logs = sys.argv[1]

def table(kind, key_cols, value_col, kernel_col=None):
    rows, kernels = {}, {}
    for side in "AB":
        for path in sorted(glob.glob(os.path.join(logs, "%s-%s-*.csv" % (kind, side)))):
            with open(path) as fh:
                for row in csv.DictReader(fh):
                    try:
                        value = float(row[value_col])
                    except (KeyError, ValueError):
                        continue
                    key = tuple(row[c] for c in key_cols)
                    rows.setdefault(key, {"A": [], "B": []})[side].append(value)
                    if kernel_col:  # the timed calls' kernel (the first word: a check's may follow)
                        kernels.setdefault(key, {}).setdefault(side, row.get(kernel_col, "").split(" ")[0])
    if not rows:
        return
    print("\n%s: median %s over rounds%s" % (kind, value_col, ", * kernel differs" if kernel_col else ""))
    print("%-44s %9s %9s %7s" % (" ".join(key_cols), "A", "B", "B/A"))
    moved = lambda key: kernel_col and len(set(kernels.get(key, {}).values())) > 1
    for key, v in rows.items():
        a = statistics.median(v["A"]) if v["A"] else float("nan")
        b = statistics.median(v["B"]) if v["B"] else float("nan")
        ratio = b / a if a > 0 else float("nan")
        note = ""
        if moved(key):
            note = " * %s -> %s" % (kernels[key].get("A", "?"), kernels[key].get("B", "?"))
        print("%-44s %9.3f %9.3f %7.3f%s" % (" ".join(key)[:44], a, b, ratio, note))
    if kernel_col:
        for label, pick in (("kernel differs", True), ("same kernel", False)):
            r = [statistics.median(v["B"]) / statistics.median(v["A"]) for key, v in rows.items()
                 if v["A"] and v["B"] and statistics.median(v["A"]) > 0 and bool(moved(key)) == pick]
            if r:
                print("B/A geomean, %s: %.3f over %d rows (%.3f-%.3f)" % (
                    label, statistics.geometric_mean(r), len(r), min(r), max(r)))
    by_type = {}
    for key, v in rows.items():
        if v["A"] and v["B"] and statistics.median(v["A"]) > 0:
            by_type.setdefault(key[1] if kind == "blas3" else key[0], []).append(
                statistics.median(v["B"]) / statistics.median(v["A"]))
    print("B/A geomean per type: " + "  ".join(
        "%s %.3f (%d)" % (t, statistics.geometric_mean(r), len(r)) for t, r in sorted(by_type.items())))

table("blas3", ["routine", "type", "side", "uplo", "trans", "diag", "m", "n", "k"], "ptxblas_tflops")
table("gemm", ["type", "transa", "transb", "m", "n", "k", "name"], "ptxblas_tflops")
for run in ("b0", "b1", "ptr"):
    table("batched-" + run, ["type", "trans", "m", "n", "k", "batch"], "ptxblas_tflops", "kernel")
if glob.glob(os.path.join(logs, "latency-*.txt")):
    print("\nfirst-call latency (ms): library, JIT cache, then the benchmark's lines")
for side in "AB":
    for run in ("cold", "warm"):
        path = os.path.join(logs, "latency-%s-%s.txt" % (side, run))
        if os.path.exists(path):
            for line in open(path):
                if line.startswith(("first-", "repeated", "launch floor")):
                    print("%s %s  %s" % (side, run, line.rstrip()))
PY

if [ -n "${OUT:-}" ]; then
  echo "logs: \$OUT/ab-results.tgz (written on exit)"
else
  echo "logs: $logs"
fi
