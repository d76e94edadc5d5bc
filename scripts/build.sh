#!/usr/bin/env bash
# Configures and builds into build/ (the folder carried to the GPU machine).
set -eu
cd "$(dirname "$0")/.."
scripts/ensure_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build build -j"$(nproc)"
