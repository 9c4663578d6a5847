#!/usr/bin/env bash
# A single-node Slurm on this machine, from Debian's slurm-wlm and munge, for the tests and for
# trying `dualgap run --executor slurm` without a cluster. Runs munged, slurmctld and slurmd as
# root without systemd; everything (config, state, logs, PIDs, munge key and socket) lives in
# one state folder, nothing under /etc is touched.
#
#   scripts/local-slurm.sh start [STATE_DIR]   # prints: export SLURM_CONF=STATE_DIR/slurm.conf
#   scripts/local-slurm.sh stop  [STATE_DIR]   # stops the daemons it started, by their PIDs
#
# Sized from this machine: one node with slurmd -C's CPUs and memory, one partition "local".
# (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none: no cgroups or systemd needed.)
set -euo pipefail
cmd=${1:-}
state=${2:-${DUALGAP_SLURM_STATE:-${TMPDIR:-/tmp}/dualgap-local-slurm}}
die() { echo "local-slurm: $*" >&2; exit 1; }

stop() {
  for d in slurmd slurmctld munged; do
    [ -f "$state/$d.pid" ] || continue
    pid=$(cat "$state/$d.pid")
    if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$state/$d.pid"
  done
}

start() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (slurmd starts jobs as their users)"
  for b in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
    command -v "$b" >/dev/null || die "$b not found: install slurm-wlm and munge (scripts/setup.sh)"
  done
  mkdir -p "$state"/{spool,ctld,log,munge}
  chmod 700 "$state/munge"
  stop  # a stale set from an earlier start
  # munge: its own key and socket (the package's munged may be running, or not, elsewhere).
  [ -s "$state/munge/munge.key" ] || dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$state/munge/munge.key"
  munged --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
    --pid-file="$state/munged.pid" --log-file="$state/log/munged.log" --seed-file="$state/munge/seed" \
    --force || die "munged did not start: $(tail -3 "$state/log/munged.log" 2>/dev/null)"
  local host node mem
  host=$(hostname -s)
  # slurmd -C prints this machine's node line (CPUs, sockets, cores, threads, RealMemory).
  node=$(slurmd -C | grep '^NodeName=' | sed "s/^NodeName=[^ ]*/NodeName=$host/; s/ UpTime=.*//")
  mem=$(free -m | awk '/^Mem:/ {print int($2 * 0.9)}')
  node=$(echo "$node" | sed "s/RealMemory=[0-9]*/RealMemory=$mem/")
  local port=${DUALGAP_SLURM_PORT:-6817}
  cat > "$state/slurm.conf" <<CONF
ClusterName=dualgap-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$state/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
PlugStackConfig=$state/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=60
KillWait=5
DefMemPerCPU=$((mem / $(nproc)))
$node State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  : > "$state/plugstack.conf"
  export SLURM_CONF="$state/slurm.conf"
  slurmctld -c || die "slurmctld did not start: $(tail -5 "$state/log/slurmctld.log" 2>/dev/null)"
  slurmd || die "slurmd did not start: $(tail -5 "$state/log/slurmd.log" 2>/dev/null)"
  for _ in $(seq 60); do
    st=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
    case "$st" in
      idle*|mixed*|allocated*) echo "export SLURM_CONF=$state/slurm.conf"; return 0 ;;
      down*|drain*) scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
  done
  die "the node did not become idle (state '${st:-none}'): $(tail -5 "$state/log/slurmd.log" 2>/dev/null)"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop [STATE_DIR]" >&2; exit 2 ;;
esac
