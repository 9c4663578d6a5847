#!/usr/bin/env bash
# Sourced by the Slurm tests of tests/cluster: starts a private Slurm (scripts/local-slurm.sh)
# in a fresh folder, stopped and removed when the test exits. Sets bin, src, work, state,
# SLURM_CONF and DUALGAP_PLUGIN_PATH; defines cannot and fail. Where Slurm cannot start: FAIL
# when CI=true, else skip (exit 77) saying why.
# Usage: source slurm_setup.sh DUALGAP_BIN TEST_PLUGIN_DIR SOURCE_DIR PORT
# PORT: the first of two ports of the test's own, so that the cluster tests may run at once.
bin=$1; export DUALGAP_PLUGIN_PATH=$2; src=$3
cannot() {
  if [ "${CI:-}" = "true" ]; then echo "FAIL: Slurm cannot start in CI: $*"; exit 1; fi
  echo "SKIP: Slurm cannot start here: $*"; exit 77
}
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
state="$work/slurm"
cleanup() { bash "$src/scripts/local-slurm.sh" stop "$state" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
[ "$(id -u)" -eq 0 ] || cannot "not root (slurmd must run as root)"
command -v slurmctld >/dev/null && command -v munged >/dev/null || cannot "slurm-wlm or munge not installed (scripts/setup.sh)"
export DUALGAP_SLURM_PORT=$4
out=$(bash "$src/scripts/local-slurm.sh" start "$state" 2>&1) || cannot "$out"
export SLURM_CONF="$state/slurm.conf"
