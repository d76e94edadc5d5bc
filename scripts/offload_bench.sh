#!/usr/bin/env bash
# On the lent GPU machine, from the repository root with build/bin (and .openblas/, see
# scripts/lapack_bench.sh, when the machine has no OpenBLAS of its own) carried: host-memory
# dgemm_/dtrsm_/dsyrk_ at n = ${OFFLOAD_N:-16384} offloaded whole, in pipelined tiles of 128 and
# 512 MiB, and within 4 GiB of device memory, against OpenBLAS alone
# (testing/reports/h100-offload.csv; perf notes §78).
set -euo pipefail
cd "$(dirname "$0")/.."
cpu=$(/sbin/ldconfig -p | awk '/libopenblas\.so\.0 / {print $NF; exit}')
if [ -z "$cpu" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  dpkg -x .openblas/libopenblas0-pthread_*.deb "$work"
  cpu=$(find "$work" -name libopenblas.so.0 | head -n 1)
fi
mkdir -p testing/reports
build/bin/ptxblas-bench-offload build/bin/libptxblas.so "$cpu" testing/reports/h100-offload.csv "${OFFLOAD_N:-16384}"
if [ -n "${OUT:-}" ]; then cp testing/reports/h100-offload.csv "$OUT/"; fi
