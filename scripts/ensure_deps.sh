#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, only when missing. The CUDA 13.0
# toolkit is expected in /usr/local/cuda (it is not a Debian package).
set -eu
need=()
for pkg in cmake g++ make libgtest-dev libcli11-dev binutils libblas-dev liblapack-dev liblapacke-dev libtomlplusplus-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}"
fi
if [ ! -x /usr/local/cuda/bin/ptxas ]; then
  echo "ensure_deps: the CUDA 13.0 toolkit is expected in /usr/local/cuda" >&2
  exit 1
fi
