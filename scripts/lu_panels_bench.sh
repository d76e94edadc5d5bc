#!/usr/bin/env bash
# LU's panels on the GPU against the host's LAPACK (ptxblas.toml lapack.lu_panels, perf notes
# §80): ptxblas-lapack-bench through libptxblas.so in alternating processes, each setting's log
# lines (the factorization's time breakdown) kept, then OpenBLAS's own LAPACK once for scale.
# Needs the Release build and .openblas/ (see lapack_bench.sh).
#   LAPACK_SIZES="8192 16384" ROUNDS=2 scripts/lu_panels_bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${LAPACK_SIZES:-"8192 16384"}
rounds=${ROUNDS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. scripts/carried_blas.sh  # carried, reflapack, system, cpu (also the reference-LAPACK baseline's BLAS)
for ((r = 1; r <= rounds; ++r)); do
  for place in gpu host; do
    printf '[cpu]\nblas = "%s"\n[lapack]\nlu_panels = "%s"\n[log]\nlevel = "info"\n' "$cpu" "$place" >"$work/$place.toml"
    echo "# lu_panels = $place, round $r"
    PTXBLAS_CONFIG=$work/$place.toml LD_LIBRARY_PATH=$reflapack LD_PRELOAD=$PWD/build/bin/libptxblas.so \
      build/bin/ptxblas-lapack-bench $sizes 2>"$work/log.txt"
    grep -E 'getrf' "$work/log.txt" | tail -n 3 || true
  done
done
echo "# OpenBLAS's own LAPACK"
LD_PRELOAD=$cpu build/bin/ptxblas-lapack-bench $sizes
