#!/usr/bin/env bash
# Times the strom commands an agent calls often against `git rev-parse HEAD` on a
# generated repo of 50,000 tracked files with 100 changed. Prints the ratios that
# BENCHMARKS.md records.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
strom="$top/bin/strom"
work=$(mktemp -d "${TMPDIR:-/tmp}/strom-bench.XXXXXX")
# KEEP=1 keeps the generated repo for measuring by hand (for example perf stat).
if [ "${KEEP:-}" = 1 ]; then echo "repo kept in $work/repo"; else trap 'rm -rf "$work"' EXIT; fi
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

# R rounds; in each, N runs of every command back to back, so that a change in the
# machine's load falls on all of them alike. The figure of a command is the median of
# its R round means; ratios are medians over git's median.
R=${R:-5}
N=${N:-20}
time_cmd() { # prints mean milliseconds of N runs of "$@"
	local start end
	start=$(date +%s%N)
	for _ in $(seq 1 "$N"); do "$@" >/dev/null; done
	end=$(date +%s%N)
	awk -v s="$start" -v e="$end" -v n="$N" 'BEGIN { printf "%.3f", (e - s) / 1000000 / n }'
}
in_session() { STROM_SESSION=bench STROM_TASK=T-1 "$strom" task; }
# task list right after queue.json changed: a blank line more each time (still the
# same queue), so the memo of validated contents never knows it and the schema is
# compiled and applied.
list_changed() { echo >>.strom/queue.json && "$strom" task list; }
names=(ref list changed status session)
declare -A runs
for _ in $(seq 1 "$R"); do
	runs[ref]+=" $(time_cmd git rev-parse HEAD)"
	runs[list]+=" $(time_cmd "$strom" task list)"
	runs[changed]+=" $(time_cmd list_changed)"
	runs[status]+=" $(time_cmd "$strom" status)"
	runs[session]+=" $(time_cmd in_session)"
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A med
for n in "${names[@]}"; do med[$n]=$(echo "${runs[$n]}" | median); done
ratio() { awk -v a="$1" -v b="${med[ref]}" 'BEGIN { printf "%.2f", a / b }'; }
echo "median of $R rounds of $N runs each"
printf 'git rev-parse HEAD            %7.2f ms\n' "${med[ref]}"
printf 'strom task list               %7.2f ms  (%sx git rev-parse HEAD)\n' "${med[list]}" "$(ratio "${med[list]}")"
printf 'strom task list, queue changed %6.2f ms  (%sx)\n' "${med[changed]}" "$(ratio "${med[changed]}")"
printf 'strom status                  %7.2f ms  (%sx)\n' "${med[status]}" "$(ratio "${med[status]}")"
printf 'strom task (agent, session)   %7.2f ms  (%sx)\n' "${med[session]}" "$(ratio "${med[session]}")"
