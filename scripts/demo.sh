#!/usr/bin/env bash
# Builds, then runs the demo on the real cuBLAS and under LD_PRELOAD=libptxblas.so.
set -eu
cd "$(dirname "$0")/.."
scripts/build.sh
exec examples/run_demo.sh
