#!/usr/bin/env bash
# Hostile names and values through the real sbatch of slurm-wlm (scripts/local-slurm.sh):
#  A. a submission folder, results folder, experiment name and sbatch argument with a space, '#',
#     both quotes, '%', `$(...)` and backquotes run end to end; scontrol shows what sbatch parsed
#     (job name, working folder, partition, time, memory, comment) equal to what was given;
#  B. a control character in any value that reaches a script (each option, --set, the YAML, --out,
#     the working folder, the experiment path) is refused with exit 2 naming it, before any file
#     or job exists;
#  C. quotes that try to leave their value reach sbatch as one value (refused by Slurm or kept);
#  D. sbatch options that would choose the job's environment or files are refused;
#  E. `dualgap status` on a submission.json whose job ids are commands runs none of them.
# No variant may create a file named pwned anywhere under the test folder (or in / or $HOME).
# Usage: slurm_quoting_test.sh DUALGAP_BIN TEST_PLUGIN_DIR SOURCE_DIR
set -uo pipefail
# Ports of our own (two each, even, above those of slurm_sweep_test.sh): the cluster tests may run at once.
source "$(dirname "$0")/slurm_setup.sh" "$1" "$2" "$3" $((41000 + ($$ % 9000) * 2))
no_pwned() {
  local found
  found=$(find "$work" -name pwned 2>/dev/null)
  [ -z "$found" ] && [ ! -e /pwned ] && [ ! -e "$HOME/pwned" ] || fail "$1: a value ran as a command (pwned: $found)"
}
queue_empty() { [ -z "$(squeue -h -o %i 2>/dev/null)" ] || fail "$1: a job was submitted: $(squeue -h)"; }
field() { scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
# scontrol prints a job's fields separated by spaces; values with spaces need the whole line.
line_field() { scontrol show job "$1" | sed -n "s/^\(.* \)\{0,1\}$2=//p" | head -1 | sed 's/ $//'; }

# --- A. hostile but valid names, end to end ---------------------------------------------------
dir="$work/"'w d#1 it'"'"'s "q" %x $(touch pwned) `touch pwned`'
mkdir -p "$dir" && cd "$dir" || fail "cannot make $dir"
name='my exp#1 it'"'"'s "q" %x $(touch pwned)'
comment='c #1 it'"'"'s "q" %x $(touch pwned) `touch pwned` \ end'
cat > exp.yaml <<'YAML'
name: "my exp#1 it's \"q\" %x $(touch pwned)"
data: {plugin: synthetic_multiclass, n: 30, d: 3, K: 2}
solvers:
  - {name: a, plugin: test_solver, params: {behaviour: budget}}
stop: {max_passes: 3, deadline: 60}
repeats: 2
executor: {name: slurm, time: "10:00", mem: 200M, sbatch_args: ["--comment=c #1 it's \"q\" %x $(touch pwned) `touch pwned` \\ end"]}
YAML
res='res#1 it'"'"'s "q" %x $(touch pwned)'
log=$("$bin" run exp.yaml --out "$res" --partition local --wait 2>&1) || fail "the hostile-name sweep failed: $log"
no_pwned "A (end to end)"
n=$(ls "$res/$name"/*/run.json 2>/dev/null | wc -l); [ "$n" -eq 2 ] || fail "$n run.json files under '$res/$name', expected 2: $log"
[ -s "$res/$name/report.html" ] || fail "no report.html in '$res/$name': $log"
sub=$(ls -d "$res/$name"/.slurm/*/ | head -1)
[ -s "$sub/task-0.log" ] && [ -s "$sub/task-1.log" ] && [ -s "$sub/report.log" ] \
  || fail "the logs are not where --output said ($sub): $(ls -a "$sub")"
job=$(echo "$log" | sed -n 's/.*Slurm job array \([0-9]*\).*/\1/p')
[ -n "$job" ] || fail "no job id in: $log"
[ "$(line_field "${job}_0" JobName)" = "dualgap-$name" ] || fail "job name: '$(line_field "${job}_0" JobName)'"
[ "$(line_field "${job}_0" WorkDir)" = "$dir" ] || fail "working folder: '$(line_field "${job}_0" WorkDir)'"
[ "$(line_field "${job}_0" Comment)" = "$comment" ] || fail "comment: '$(line_field "${job}_0" Comment)' != '$comment'"
[ "$(field "${job}_0" Partition)" = local ] || fail "partition: $(field "${job}_0" Partition)"
[ "$(field "${job}_0" TimeLimit)" = 00:10:00 ] || fail "time limit: $(field "${job}_0" TimeLimit)"
[ "$(field "${job}_0" MinMemoryNode)" = 200M ] || fail "memory: $(field "${job}_0" MinMemoryNode)"
st=$("$bin" status "$res" 2>&1) || fail "status: $st"
echo "$st" | grep -qF "2 runs: 2 finished (0 converged, 2 stopped by a budget), 0 diverged, 0 failed" || fail "status: $st"

# The same from command-line options, held in the queue and read back before it runs.
held=$("$bin" run exp.yaml --out "$res" --force --partition local --time 0:07:00 --mem 150M \
  --sbatch-arg='--comment=x" --wrap="touch pwned' --sbatch-arg=--hold 2>&1) || fail "held submission: $held"
job=$(echo "$held" | sed -n 's/.*Slurm job array \([0-9]*\).*/\1/p')
[ -n "$job" ] || fail "no job id in: $held"
[ "$(line_field "$job" Comment)" = 'x" --wrap="touch pwned' ] || fail "held comment: '$(line_field "$job" Comment)'"
[ "$(field "$job" TimeLimit)" = 00:07:00 ] || fail "held time limit: $(field "$job" TimeLimit)"
[ "$(field "$job" MinMemoryNode)" = 150M ] || fail "held memory: $(field "$job" MinMemoryNode)"
[ "$(line_field "$job" WorkDir)" = "$dir" ] || fail "held working folder: '$(line_field "$job" WorkDir)'"
scancel "$job" "$((job + 1))"
for _ in $(seq 100); do [ -z "$(squeue -h -o %i)" ] && break; sleep 0.2; done
queue_empty "after scancel"
no_pwned "A (held)"

# --- B. a control character in any value: exit 2, naming it, nothing written, nothing queued --
cd "$work" || exit 1
cp "$dir/exp.yaml" exp.yaml
refused() {  # EXPECTED-FRAGMENT ARGS...: run from the current folder, must exit 2 naming the value
  local want=$1; shift
  local o rc
  o=$("$bin" run "$@" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc (expected 2) for: $* -> $o"
  echo "$o" | grep -qF -- "$want" || fail "no '$want' in the message for: $* -> $o"
  echo "$o" | grep -q "control character\|not allowed\|long form\|backslash" || fail "unclear message for: $* -> $o"
  [ ! -e res2 ] || fail "a results folder was written for: $*"
  queue_empty "$*"
  no_pwned "$*"
}
refused "--partition 'local\\x0Atouch pwned'" exp.yaml --out res2 --partition $'local\ntouch pwned'
refused "--partition 'local\\x0D#SBATCH --wrap=touch pwned'" exp.yaml --out res2 --partition $'local\r#SBATCH --wrap=touch pwned'
refused "--time '10:00\\x0Atouch pwned'" exp.yaml --out res2 --time $'10:00\ntouch pwned'
refused "--mem '1G\\x09x'" exp.yaml --out res2 --mem $'1G\tx'
refused "--sbatch-arg '--qos=x\\x0Atouch pwned'" exp.yaml --out res2 --sbatch-arg $'--qos=x\ntouch pwned'
refused "--sbatch-arg '--comment=\\x7F'" exp.yaml --out res2 --sbatch-arg $'--comment=\x7f'
refused "executor.partition 'p\\x0A\$(touch pwned)'" exp.yaml --out res2 --set 'executor.partition="p\n$(touch pwned)"'
refused "executor.sbatch_args '--qos=x\\x0Atouch pwned'" exp.yaml --out res2 --set 'executor.sbatch_args=["--qos=x\ntouch pwned"]'
refused "--out" exp.yaml --out $'res2\ntouch pwned'
refused "--set 'stop.max_passes=3\\x0A#x'" exp.yaml --out res2 --set $'stop.max_passes=3\n#x'
cp exp.yaml $'e\ntouch pwned.yaml'
refused "the experiment file path" $'e\ntouch pwned.yaml' --out res2
mkdir -p $'nl\ntouch pwned' && cd $'nl\ntouch pwned' && refused "the working folder" ../exp.yaml --out res2 && cd "$work"
sed 's/^executor: {name: slurm, /executor: {name: slurm, partition: "local\\ntouch pwned", /' exp.yaml > nl.yaml
refused "nl.yaml:7:" nl.yaml --out res2
refused "the results folder" exp.yaml --out 'res2\x'
[ ! -e 'res2\x' ] || fail "a results folder with a backslash was written"

# --- C. quotes that try to leave their value reach sbatch as one value -------------------------
for p in "local' ; touch pwned ; echo '" 'local" --wrap="touch pwned' 'local #x --wrap=touch'; do
  o=$("$bin" run exp.yaml --out res3 --partition "$p" 2>&1); rc=$?
  [ "$rc" -eq 1 ] || fail "partition '$p': exit $rc (expected 1, sbatch refusing the partition): $o"
  echo "$o" | grep -q "sbatch.*failed" || fail "partition '$p': $o"
  queue_empty "partition '$p'"
  no_pwned "partition '$p'"
  st=$("$bin" status res3 2>&1) || fail "status after a refused sbatch: $st"
  echo "$st" | grep -q "not submitted" || fail "status after a refused sbatch: $st"
done

# --- D. sbatch options that choose the job's environment, program or files --------------------
printf '#!/bin/sh\ntouch "%s/pwned"\n' "$work" > evil.sh && chmod +x evil.sh
refused "sbatch --export is not allowed" exp.yaml --out res2 --sbatch-arg="--export=ALL,BASH_ENV=$work/evil.sh"
refused "sbatch --export is not allowed" exp.yaml --out res2 --sbatch-arg="--exp=ALL,BASH_ENV=$work/evil.sh"
refused "sbatch --output is not allowed" exp.yaml --out res2 --sbatch-arg="--output=$work/evil.sh"
refused "sbatch --wrap is not allowed" exp.yaml --out res2 --sbatch-arg="--wrap=$work/evil.sh"
refused "long form" exp.yaml --out res2 --sbatch-arg="-o$work/evil.sh"
refused "long form" exp.yaml --out res2 --sbatch-arg="--account lab"

# --- E. status runs no job id as a command --------------------------------------------------
for bad in '1;touch pwned' '$(touch pwned)' '`touch pwned`' $'1\ntouch pwned' '1 -o %i;touch pwned' '-h'; do
  rm -rf res4 && mkdir -p res4/exp/.slurm/s1
  printf '{"array_job": %s, "report_job": "%s"}\n' "$(printf '%s' "$bad" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')" \
    "$job" > res4/exp/.slurm/s1/submission.json
  o=$("$bin" status res4 2>&1); rc=$?
  [ "$rc" -eq 1 ] || fail "status with array_job '$bad': exit $rc: $o"
  echo "$o" | grep -qF "res4/exp/.slurm/s1/submission.json: key 'array_job': expected a Slurm job id" \
    || fail "status with array_job '$bad': $o"
  no_pwned "status with array_job '$bad'"
done
printf '{"array_job": "%s", "report_job": "%s"}\n' "$job" "$((job + 1))" > res4/exp/.slurm/s1/submission.json
o=$("$bin" status res4 2>&1) || fail "status of a valid submission: $o"
echo "$o" | grep -q "array job $job: .*(squeue)" || fail "status of a valid submission: $o"
no_pwned "the end"
echo "ok: hostile names end to end through sbatch, 18 control-character and option refusals, 3 quote escapes, 6 status injections; no pwned"
