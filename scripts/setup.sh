#!/usr/bin/env bash
# Installs the Debian 12 packages gpusim needs, only when one is missing.
# Run as root on a fresh machine; a no-op (and no network use) when all are present.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config time
  libboost-graph-dev libeigen3-dev nlohmann-json3-dev libyaml-cpp-dev
  libcli11-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  coinor-libclp-dev clang-14 libclang-rt-14-dev gnuplot-nox libxml2-utils prometheus jq valgrind python3
  bsdutils  # script(1): the progress tests run gpusim under a terminal
  libopenmpi-dev openmpi-bin  # mpirun -np N gpusim sweep (gpusim-sweep-mpi)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages: ${missing[*]}; run this script as root to install them" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
