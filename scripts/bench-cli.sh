#!/usr/bin/env bash
# Times the strom commands an agent calls often against `git rev-parse HEAD` on a
# generated repo of 50,000 tracked files with 100 changed. Prints the ratios that
# BENCHMARKS.md records.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
strom="$top/bin/strom"
work=$(mktemp -d "${TMPDIR:-/tmp}/strom-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME="$work" XDG_CONFIG_HOME="$work/.config"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
repo="$work/repo"
mkdir -p "$repo" && cd "$repo"
git init -q
for d in $(seq 0 499); do
	mkdir -p "d$d"
	for f in $(seq 0 99); do echo "file $d/$f" > "d$d/f$f.txt"; done
done
git add -A && git commit -q -m "50,000 files"
"$strom" init --agent demo >/dev/null
for i in $(seq 1 20); do "$strom" task add "Task $i" >/dev/null; done
"$strom" task add "Task 21" >/dev/null
git add -A && git commit -q -m tasks --no-verify
for f in $(seq 0 99); do echo changed >> "d$f/f0.txt"; done

N=${N:-50}
time_cmd() { # prints mean milliseconds of N runs of "$@"
	local start end
	start=$(date +%s%N)
	for _ in $(seq 1 "$N"); do "$@" >/dev/null; done
	end=$(date +%s%N)
	awk -v s="$start" -v e="$end" -v n="$N" 'BEGIN { printf "%.3f", (e - s) / 1000000 / n }'
}
ref=$(time_cmd git rev-parse HEAD)
list=$(time_cmd "$strom" task list)
status=$(time_cmd "$strom" status)
record=$(time_cmd env STROM_SESSION=bench STROM_TASK=T-1 "$strom" task)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf 'git rev-parse HEAD   %6.2f ms\n' "$ref"
printf 'strom task list      %6.2f ms  (%sx git rev-parse HEAD)\n' "$list" "$(ratio "$list" "$ref")"
printf 'strom status         %6.2f ms  (%sx)\n' "$status" "$(ratio "$status" "$ref")"
printf 'strom task (agent)   %6.2f ms  (%sx)\n' "$record" "$(ratio "$record" "$ref")"
