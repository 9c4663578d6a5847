#!/usr/bin/env bash
# Installs what dualgap needs from Debian's packages (idempotent; as root, or with sudo).
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libboost-dev libboost-program-options-dev libboost-iostreams-dev libboost-graph-dev libboost-filesystem-dev
  nlohmann-json3-dev libyaml-cpp-dev doctest-dev libeigen3-dev libfmt-dev libxtensor-dev
  zlib1g-dev libbz2-dev libxxhash-dev libjpeg-dev libcurl4-openssl-dev libssl-dev
  liblbfgsb-dev liblinear-tools liblinear-dev libdlib-dev libbenchmark-dev
  libblas-dev  # CBLAS for the dlib headers (DLIB_USE_BLAS): solver cutting_plane
  python3 python3-matplotlib python3-numpy python3-pandas poppler-utils chromium
  clang libclang-rt-dev
  slurm-wlm munge  # scripts/local-slurm.sh: a single-node Slurm for the cluster tests
)
# The HTML report inlines uPlot (npm package `uplot`, pinned): installed globally with npm below.
UPLOT_VERSION=1.6.32
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm: any Node.js that brings one (e.g. a nodesource nodejs) will do; else Debian's npm.
command -v npm >/dev/null 2>&1 || missing+=(npm)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
else
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
uplot_dir="$(npm root -g 2>/dev/null)/uplot"
if [ -f "$uplot_dir/dist/uPlot.iife.min.js" ] && grep -q "\"version\": \"$UPLOT_VERSION\"" "$uplot_dir/package.json"; then
  echo "setup: uplot $UPLOT_VERSION is installed"
else
  echo "setup: npm install -g uplot@$UPLOT_VERSION"
  $SUDO npm install -g --no-fund --no-audit "uplot@$UPLOT_VERSION" >/dev/null
fi
echo "setup: done"
