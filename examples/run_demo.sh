#!/usr/bin/env bash
# Runs the demo twice from the repo root: once on the real cuBLAS, once with ptxblas preloaded
# (logging every call). Exits with the worse of the two statuses. Expects an existing build/.
set -u
cd "$(dirname "$0")/.." || exit 1

demo=build/bin/ptxblas_demo
lib=$PWD/build/bin/libptxblas.so
for f in "$demo" "$lib"; do
  if [ ! -e "$f" ]; then
    echo "run_demo.sh: $f not found; build first: cmake -S . -B build && cmake --build build -j" >&2
    exit 2
  fi
done

echo "=== run 1/2: plain cuBLAS ($demo) ==="
"$demo"
rc1=$?
echo "=== run 1/2 exit status: $rc1 ==="
echo
echo "=== run 2/2: with ptxblas (PTXBLAS_LOG=1 LD_PRELOAD=$lib $demo) ==="
PTXBLAS_LOG=1 LD_PRELOAD="$lib" "$demo"
rc2=$?
echo "=== run 2/2 exit status: $rc2 ==="

exit $(( rc1 > rc2 ? rc1 : rc2 ))
