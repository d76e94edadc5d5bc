#!/usr/bin/env bash
# On the lent GPU machine, from the repository root with build/bin and .openblas/ carried (the
# Debian libopenblas0-pthread package: `mkdir -p .openblas && (cd .openblas && apt-get download
# libopenblas0-pthread)` here; the folder is git-ignored): LAPACKE dpotrf and dgetrf through
# ptxblas (the reference LAPACK's BLAS3 calls offloaded by libptxblas.so, the small ones on
# OpenBLAS) and through OpenBLAS alone on all host cores. Writes testing/reports/h100-lapack.csv:
#   routine,type,n,ptxblas_seconds,cpu_blas_seconds,cpu_blas
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${LAPACK_SIZES:-"64 8192 16384"}
work=$(mktemp -d)
dpkg -x .openblas/libopenblas0-pthread_*.deb "$work/openblas"
openblas=$(find "$work/openblas" -name 'libopenblas.so.0' | head -n 1)
printf '[cpu]\nblas = "%s"\n' "$openblas" >"$work/ptxblas.toml"

PTXBLAS_CONFIG=$work/ptxblas.toml LD_PRELOAD=$PWD/build/bin/libptxblas.so \
  build/bin/ptxblas-lapack-bench $sizes | tee "$work/ptxblas.txt"
LD_PRELOAD=$openblas build/bin/ptxblas-lapack-bench $sizes | tee "$work/openblas.txt"

out=testing/reports/h100-lapack.csv
mkdir -p testing/reports
echo "routine,type,n,ptxblas_seconds,cpu_blas_seconds,cpu_blas" >"$out"
join -j1 <(awk '{print $1"_"$3, $2, $4}' "$work/ptxblas.txt" | sort) \
         <(awk '{print $1"_"$3, $4}' "$work/openblas.txt" | sort) |
  awk '{split($1, k, "_"); printf "%s,%s,%s,%s,%s,openblas-0.3.21-pthread\n", k[1], $2, k[2], $3, $4}' |
  sort -t, -k1,1 -k3,3n >>"$out"
cat "$out"
[ -n "${OUT:-}" ] && cp "$out" "$OUT/"
rm -rf "$work"
