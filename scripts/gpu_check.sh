#!/usr/bin/env bash
# On the lent GPU machine, from a copy of the repository with the carried build/: the GPU tests and,
# beside them, the CPU tests, the benchmark against cuBLAS, then testing/reports/h100.md and
# testing/reports/h100-bench.csv. Every step runs even when an earlier one fails.
#
# Logs and test results go to $LOGDIR (build/gpu-logs); with $OUT set, they, the report and the
# CSVs come back as $OUT/gpu-results.tgz, plus $OUT/h100.md. Ends with the benchmark table and the
# test counts. Exit status: 0 when the GPU and CPU tests passed and every benchmark row was ok,
# 1 otherwise (the report is written either way).
#
# Environment: BUILD_DIR (build), REPORT_DIR (testing/reports), LOGDIR, BENCH_SUITE
# (testing/bench/suite_public.txt), and the time limits
# GPU_TEST_TIMEOUT (330 s per shard; GPU_TEST_SHARDS, 10, run side by side: with 8, the shard holding the c64 narrow-shape references took 230-280 s and once passed 330 s, report ba71f857), CPU_TEST_TIMEOUT (150 s per binary), BENCH_TIMEOUT (240 s), which keep
# the whole run inside one 10-minute device call (BLAS3_TIMEOUT, 120 s, for the level-3 benchmark: 67 s for its 32 routines on the H100;
# lower the others, or run the benchmarks in a second call, if the sum gets close to 10 minutes).
#
# Wrapped in an outer `timeout`, allow at least 420 s: on the H200 (2026-11-29) the GPU tests took
# 119-158 s (shards share the host's cores with the CPU tests), the benchmark 74-85 s, level 3
# 80-85 s, and an outer 330 s once cut a run off at the level-3 benchmark.
#
# Typical use: build here with `BUILD_TYPE=Release scripts/build.sh` (RelWithDebInfo binaries
# are larger than the 64 MiB a device call may carry), then run `scripts/gpu_check.sh` on the
# device with `build/bin` carried, and extract h100.md and the CSVs from $OUT/gpu-results.tgz
# into testing/reports/.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

BUILD=${BUILD_DIR:-build}
REPORTS=${REPORT_DIR:-testing/reports}
# With $OUT (the device tool's output folder, which returns at most 8 files) the logs go to a
# scratch folder and come back in one archive, $OUT/gpu-results.tgz, beside h100.md.
if [ -n "${OUT:-}" ]; then
  LOGDIR=${LOGDIR:-$(mktemp -d)}
else
  LOGDIR=${LOGDIR:-$BUILD/gpu-logs}
fi
GPU_TEST_TIMEOUT=${GPU_TEST_TIMEOUT:-330}
CPU_TEST_TIMEOUT=${CPU_TEST_TIMEOUT:-150}  # the generator tests take ~45-55 s there alone (ptxas over ~480 kernels, two at a time), more beside the GPU tests
BENCH_TIMEOUT=${BENCH_TIMEOUT:-240}
ORACLE_MS=${ORACLE_MS:-1000}  # oracle search budget per shape (ptxblas-bench --oracle-ms)
BENCH_SUITE=${BENCH_SUITE:-testing/bench/suite_public.txt}
mkdir -p "$LOGDIR" "$REPORTS" || exit 2

step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

# ---- build, only when the carried build lacks what this script runs
needed=(libptxblas.so ptxblas-bench ptxblas_gpu_tests)
missing() { for f in "${needed[@]}"; do [ -e "$BUILD/bin/$f" ] || return 0; done; return 1; }
if missing; then
  step "build: $BUILD/bin lacks some of ${needed[*]}"
  cache_home=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$BUILD/CMakeCache.txt" 2>/dev/null)
  if [ "$cache_home" = "$PWD" ]; then
    cmake --build "$BUILD" -j"$(nproc)" || echo "build failed; going on with what exists"
  elif [ ! -e "$BUILD" ] && [ "$BUILD" = build ]; then
    scripts/build.sh || {
      echo "scripts/build.sh failed (offline?); configuring directly"
      cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build -j"$(nproc)"
    } || echo "build failed; going on with what exists"
  else
    # Configured for another source path (CMake refuses to reuse it): a fresh folder beside it.
    echo "$BUILD was configured for ${cache_home:-another tree}; building into $BUILD-device"
    if cmake -S . -B "$BUILD-device" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
       cmake --build "$BUILD-device" -j"$(nproc)"; then
      BUILD=$BUILD-device
    else
      echo "build failed; going on with what exists in $BUILD"
    fi
  fi
fi
BIN=$BUILD/bin
XMLDIR=$BUILD/gpu-logs/cpu-xml   # per-binary CPU results: read by the report, not copied to $OUT
mkdir -p "$XMLDIR"

# ---- (a) the GPU
step "GPU"
gpu_name="" driver=""
if smi=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1); then
  echo "$smi"
  line=$(head -n 1 <<<"$smi")
  gpu_name=${line%,*} driver=${line##*,}
  gpu_name=${gpu_name%% } driver=${driver# }
else
  echo "nvidia-smi: ${smi:-not available}"
fi

# ---- (c, started) CPU tests, in the background: each binary's log into cpu_tests.log, its exit
# status into cpu_status.txt; step (c) below waits for them.
shopt -s nullglob
cpu_bins=("$BIN"/ptxblas_cpu_*_tests)
shopt -u nullglob
: >"$LOGDIR/cpu_tests.log"
: >"$LOGDIR/cpu_status.txt"
(
  for b in "${cpu_bins[@]}"; do
    name=$(basename "$b")
    rm -f "$XMLDIR/$name.xml"
    echo "== $name" >>"$LOGDIR/cpu_tests.log"
    timeout -k 10 "$CPU_TEST_TIMEOUT" "$b" --gtest_output="xml:$XMLDIR/$name.xml" >>"$LOGDIR/cpu_tests.log" 2>&1
    echo "$name: exit status $?" >>"$LOGDIR/cpu_status.txt"
  done
) &
cpu_pid=$!

# ---- (b) GPU tests
step "GPU tests"
gpu_args=()
# Shards in parallel processes: the tests' time is mostly the driver's JIT of the kernels they
# pick (one CPU core each), and the lent machine has 16 cores.
shards=${GPU_TEST_SHARDS:-10}
gpu_xmls=()
rm -f "$LOGDIR"/gpu_tests*.xml
if [ -x "$BIN/ptxblas_gpu_tests" ]; then
  pids=()
  for ((i = 0; i < shards; ++i)); do
    gpu_xmls+=("$LOGDIR/gpu_tests-$i.xml")
    GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i timeout -k 10 "$GPU_TEST_TIMEOUT" "$BIN/ptxblas_gpu_tests" \
      --gtest_output="xml:$LOGDIR/gpu_tests-$i.xml" >"$LOGDIR/gpu_tests-$i.log" 2>&1 &
    pids+=($!)
  done
  # Beside them, every Fortran and CBLAS level-3 routine of the CPU tests (all flags and types,
  # against Netlib) with each call offloaded (issue 6's "the same through the offload path").
  host_pid=""
  if [ -x "$BIN/ptxblas_cpu_host_blas_tests" ]; then
    gpu_xmls+=("$LOGDIR/gpu_tests-host-offloaded.xml")
    PTXBLAS_CONFIG=testing/cpu_host_blas/offload_always.toml PTXBLAS_EXPECT_GPU=1 \
      timeout -k 10 "$GPU_TEST_TIMEOUT" "$BIN/ptxblas_cpu_host_blas_tests" --gtest_filter='FortranRoutines/*:Cblas.*' \
      --gtest_output="xml:$LOGDIR/gpu_tests-host-offloaded.xml" >"$LOGDIR/gpu_tests-host-offloaded.log" 2>&1 &
    host_pid=$!
  fi
  # The factorization tests again with LU's panels on the host (lapack.lu_panels = "host").
  gpu_xmls+=("$LOGDIR/gpu_tests-lu-host.xml")
  PTXBLAS_TEST_LU_PANELS=host timeout -k 10 "$GPU_TEST_TIMEOUT" "$BIN/ptxblas_gpu_tests" --gtest_filter='Factorizations.*' \
    --gtest_output="xml:$LOGDIR/gpu_tests-lu-host.xml" >"$LOGDIR/gpu_tests-lu-host.log" 2>&1 &
  lu_host_pid=$!
  gpu_rc=0
  for ((i = 0; i < shards; ++i)); do
    wait "${pids[$i]}"; rc=$?
    [ "$rc" -eq 124 ] && echo "shard $i timed out after $GPU_TEST_TIMEOUT s" >>"$LOGDIR/gpu_tests-$i.log"
    [ "$gpu_rc" -eq 0 ] && gpu_rc=$rc
  done
  wait "$lu_host_pid"; rc=$?
  echo "LU panels on the host: exit status $rc" >>"$LOGDIR/gpu_tests-lu-host.log"
  [ "$gpu_rc" -eq 0 ] && gpu_rc=$rc
  if [ -n "$host_pid" ]; then
    wait "$host_pid"; rc=$?
    echo "host routines offloaded: exit status $rc" >>"$LOGDIR/gpu_tests-host-offloaded.log"
    [ "$gpu_rc" -eq 0 ] && gpu_rc=$rc
  fi
  cat "$LOGDIR"/gpu_tests-*.log >"$LOGDIR/gpu_tests.log"  # the offloaded host routines' log last
  rm -f "$LOGDIR"/gpu_tests-*.log
  grep -E 'timed out|^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?' "$LOGDIR/gpu_tests.log"
  grep -oE '^\[  FAILED  \] [A-Za-z][A-Za-z0-9_/.]*' "$LOGDIR/gpu_tests.log" | sort -u | head -n 20
  echo "exit status $gpu_rc ($shards shards)"
  gpu_args=(--gpu-xml "${gpu_xmls[@]}" --gpu-rc "$gpu_rc")
else
  gpu_rc=missing
  echo "$BIN/ptxblas_gpu_tests is missing" | tee "$LOGDIR/gpu_tests.log"
  gpu_args=(--gpu-note "$BIN/ptxblas_gpu_tests is missing")
fi

# ---- (c) CPU tests: the binaries themselves (CTest files hold the build machine's absolute paths).
# They start beside the GPU tests (step (b)), which leave cores free, and are waited for here:
# one after the other they took ~85 s of a ~420 s report call.
step "CPU tests"
wait "$cpu_pid"
cat "$LOGDIR/cpu_status.txt"
cpu_args=()
cpu_rc=0
for b in "${cpu_bins[@]}"; do
  rc=$(sed -n "s/^$(basename "$b"): exit status //p" "$LOGDIR/cpu_status.txt")
  rc=${rc:-1}
  [ "$rc" -gt "$cpu_rc" ] && cpu_rc=$rc
  cpu_args+=(--cpu-xml "$XMLDIR/$(basename "$b").xml")
done
if [ ${#cpu_bins[@]} -eq 0 ]; then
  cpu_rc=missing
  cpu_args=(--cpu-note "no $BIN/ptxblas_cpu_*_tests")
else
  cpu_args+=(--cpu-rc "$cpu_rc")
fi

# ---- (d) benchmark
step "benchmark"
csv=$REPORTS/h100-bench.csv
rm -f "$csv"
if [ -x "$BIN/ptxblas-bench" ]; then
  timeout -k 10 "$BENCH_TIMEOUT" "$BIN/ptxblas-bench" --suite "$BENCH_SUITE" --csv "$csv" --oracle-ms "$ORACLE_MS" \
    >"$LOGDIR/bench.log" 2>&1
  bench_rc=$?
  [ "$bench_rc" -eq 124 ] && echo "timed out after $BENCH_TIMEOUT s" | tee -a "$LOGDIR/bench.log"
  echo "exit status $bench_rc (table below)"
else
  bench_rc=missing
  echo "$BIN/ptxblas-bench is missing" | tee "$LOGDIR/bench.log"
fi

# ---- (d2) level-3 benchmark (issue 5): its own CSV, summarised in its log
step "level-3 benchmark"
blas3_csv=$REPORTS/h100-blas3.csv
if [ -x "$BIN/ptxblas-bench-blas3" ]; then
  timeout -k 10 "${BLAS3_TIMEOUT:-120}" "$BIN/ptxblas-bench-blas3" --suite testing/bench/suite_blas3.txt \
    --csv "$blas3_csv" >"$LOGDIR/bench_blas3.log" 2>&1
  echo "exit status $? (table in $LOGDIR/bench_blas3.log)"
  tail -n 25 "$LOGDIR/bench_blas3.log"
else
  echo "$BIN/ptxblas-bench-blas3 is missing"
fi

# ---- (e) report
step "report"
report_args=(--out "$REPORTS/h100.md" --bench-log "$LOGDIR/bench.log")
[ -f "$csv" ] && report_args+=(--bench-csv "$csv")
[ "$bench_rc" != missing ] && report_args+=(--bench-rc "$bench_rc")
[ -n "$gpu_name" ] && report_args+=(--gpu-name "$gpu_name")
[ -n "$driver" ] && report_args+=(--driver "$driver")
python3 scripts/write_report.py "${report_args[@]}" "${gpu_args[@]}" "${cpu_args[@]}"
report_rc=$?

# ---- (f) results to $OUT
if [ -n "${OUT:-}" ] && mkdir -p "$OUT"; then
  for f in "$REPORTS/h100.md" "$csv" "$blas3_csv"; do
    [ -f "$f" ] && cp "$f" "$LOGDIR/"
  done
  tar -czf "$OUT/gpu-results.tgz" -C "$LOGDIR" --exclude=cpu-xml . && cp "$REPORTS/h100.md" "$OUT/"
fi

# ---- the short table, last
step "summary"
if grep -q '^type ' "$LOGDIR/bench.log"; then
  sed -n '/^type /,$p' "$LOGDIR/bench.log"
else
  tail -n 5 "$LOGDIR/bench.log"
fi
[ -f "$REPORTS/h100.md" ] && grep -E '^(fingerprint|(GPU|CPU) tests|Failing)' "$REPORTS/h100.md"
echo "report: $REPORTS/h100.md (write_report exit status $report_rc)"

status=0
[ "$gpu_rc" = 0 ] || status=1
[ "$cpu_rc" = 0 ] || status=1
[ "$bench_rc" = 0 ] || status=1
[ "$report_rc" = 0 ] || status=1
exit "$status"
