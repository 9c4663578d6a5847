#!/usr/bin/env bash
# Installs what dualgap needs from Debian's packages (idempotent; as root, or with sudo).
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libboost-dev libboost-program-options-dev libboost-iostreams-dev libboost-graph-dev libboost-filesystem-dev
  nlohmann-json3-dev libyaml-cpp-dev doctest-dev libeigen3-dev libfmt-dev
  zlib1g-dev libbz2-dev libjpeg-dev
  liblbfgsb-dev liblinear-tools liblinear-dev libdlib-dev libbenchmark-dev
  python3 python3-matplotlib python3-numpy chromium
  slurm-wlm munge  # scripts/local-slurm.sh: a single-node Slurm for the cluster tests
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
