#!/usr/bin/env bash
# Builds and runs every test. Without a GPU the GPU tests report themselves skipped.
set -eu
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure
