#!/usr/bin/env bash
# On the lent GPU machine, from the repository root with build/bin and .openblas/ carried. The
# folder is git-ignored; fill it here with two Debian packages:
#   mkdir -p .openblas && (cd .openblas && apt-get download libopenblas0-pthread liblapack3)
# Times LAPACKE dpotrf and dgetrf
#   - through ptxblas: the reference LAPACK (liblapack3, put first on the library path, since the
#     GPU machine's own liblapack.so.3 is OpenBLAS's, whose dpotrf/dgetrf never call dgemm_) with
#     libptxblas.so preloaded; the offload policy sends each BLAS3 call to the GPU or to the CPU
#     BLAS (the machine's OpenBLAS when it has one, else the carried one);
#   - against the same reference LAPACK on that OpenBLAS's BLAS alone (what ptxblas adds), and
#     against OpenBLAS's own LAPACK on all host cores: the machine's OpenBLAS when it has one, and
#     the carried Debian one.
# Writes testing/reports/h100-lapack.csv, one row per routine, size and CPU run compared with:
#   routine,type,n,ptxblas_seconds,cpu_blas_seconds,cpu_blas
# Fails when no call of the ptxblas run reached ptxblas (GPU or forwarded). Since ptxblas serves
# ?potrf_ and ?getrf_ whole (shim/fortran_lapack.cpp), a large factorization is one GPU call.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${LAPACK_SIZES:-"64 8192 16384"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. scripts/carried_blas.sh  # carried, reflapack, system, cpu (also the reference-LAPACK baseline's BLAS)
mkdir -p "$work/blas" && ln -s "$(dirname "$cpu")/libblas.so.3" "$work/blas/libblas.so.3"

if [ -z "$system" ]; then printf '[cpu]\nblas = "%s"\n' "$carried" >"$work/ptxblas.toml"; else : >"$work/ptxblas.toml"; fi
# Twice: the first process on a fresh machine also compiles every kernel the factorizations use
# into ptxblas's disk cache (kept as ptxblas-cold.txt); the second is what every later process sees.
for run in cold ptxblas; do
  echo "# ptxblas run: $run"
  PTXBLAS_CONFIG=$work/ptxblas.toml LD_LIBRARY_PATH=$reflapack LD_PRELOAD=$PWD/build/bin/libptxblas.so \
    build/bin/ptxblas-lapack-bench $sizes | tee "$work/$run.txt"
done
awk '!/^#/ && $6 + $7 <= 0 {print "lapack_bench: " $1 " n=" $3 ": no call reached ptxblas"; bad = 1}
     END {exit bad}' "$work/ptxblas.txt"

# "# blas: OpenBLAS 0.3.26 ... core=Cooperlake" -> openblas-0.3.26-cooperlake
label() { awk '/^# blas:/ {v = $4; c = $NF; sub("core=", "", c); print "openblas-" v "-" tolower(c)}' "$1"; }
out=testing/reports/h100-lapack.csv
mkdir -p testing/reports
echo "routine,type,n,ptxblas_seconds,cpu_blas_seconds,cpu_blas" >"$out"
compare() {  # name, label, then the command's environment
  local name=$1 tag=$2
  shift 2
  env "$@" build/bin/ptxblas-lapack-bench $sizes | tee "$work/$name.txt"
  join -j1 <(awk '!/^#/ {print $1"_"$3, $2, $4}' "$work/ptxblas.txt" | sort) \
           <(awk '!/^#/ {print $1"_"$3, $4}' "$work/$name.txt" | sort) |
    awk -v l="$tag" '{split($1, k, "_"); printf "%s,%s,%s,%s,%s,%s\n", k[1], $2, k[2], $3, $4, l}' |
    sort -t, -k1,1 -k3,3n >>"$out"
}
LD_PRELOAD=$cpu build/bin/ptxblas-lapack-bench 64 >"$work/cpu-label.txt"
compare reference-lapack "reference-lapack+$(label "$work/cpu-label.txt")-blas" \
  LD_LIBRARY_PATH="$reflapack:$work/blas:$(dirname "$cpu")"
[ -n "$system" ] && compare system "$(label "$work/cpu-label.txt")-lapack" LD_PRELOAD="$system"
compare carried "carried-$(label <(LD_PRELOAD=$carried build/bin/ptxblas-lapack-bench 64))-lapack" LD_PRELOAD="$carried"
cat "$out"
[ -n "${OUT:-}" ] && cp "$out" "$work"/cold.txt "$work"/ptxblas.txt "$OUT/"
true
