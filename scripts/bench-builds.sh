#!/usr/bin/env bash
# strom log and strom status of several builds of strom, against git log -20, in one
# research: the rounds interleave every build with the reference, so that a change
# of the machine's load falls on all alike. BENCHMARKS.md records what it prints.
#
#   ./scripts/bench-builds.sh DIR NAME=BUILD [NAME=BUILD …]
#
# DIR is a research, such as the big one of scripts/bench-age.sh kept with
# `KEEP=1 ONLY=clone C=1 ./scripts/bench-age.sh` (its $work/big: 100,000 records,
# 20,000 tasks, 50,000 commits). R rounds (default 11) of N runs (default 10) of each
# command. A time is the median of the rounds' means (wall, and CPU: user + system of
# the processes a run starts); a ratio is the median of the rounds' ratios, each of
# two times taken in the same round.
set -euo pipefail
if [ $# -lt 2 ] || [ ! -d "$1/.strom" ]; then
	echo "usage: $0 RESEARCH-DIR NAME=STROM-BUILD [NAME=STROM-BUILD …]" >&2
	exit 2
fi
dir=$1
shift
R=${R:-11}
N=${N:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/strom-bench-builds.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME="$work" XDG_CONFIG_HOME="$work/.config" XDG_CACHE_HOME="$work/.cache"
names=(gitlog)
declare -A cmd
cmd[gitlog]="git log -20"
for b in "$@"; do
	name=${b%%=*} build=${b#*=}
	names+=("$name-log" "$name-status")
	cmd[$name-log]="$build log"
	cmd[$name-status]="$build status"
done
cd "$dir"
# Each build runs once first: the first command after a checkout builds the indexes.
for n in "${names[@]}"; do ${cmd[$n]} >/dev/null; done

time_cmd() { # prints the mean wall and CPU milliseconds of N runs of $1, as wall/cpu
	local start end
	start=$(date +%s%N)
	for _ in $(seq 1 "$N"); do ${cmd[$1]} >/dev/null; done
	end=$(date +%s%N)
	# times in a file: in a pipe it would run in a process of its own, without children.
	times >"$work/times"
	awk -v s="$start" -v e="$end" -v n="$N" 'NR == 2 {
		split($1, u, /[ms]/); split($2, y, /[ms]/)
		printf "%.3f/%.3f", (e - s) / 1000000 / n, (60 * (u[1] + y[1]) + u[2] + y[2]) * 1000 / n }' "$work/times"
}
declare -A runs
for _ in $(seq 1 "$R"); do
	for n in "${names[@]}"; do runs[$n]+=" $(time_cmd "$n")"; done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { echo "${runs[$1]}" | tr ' ' '\n' | grep . | cut -d/ -f"$2"; }
ratio() { # ratio A B FIELD: the median of the rounds' ratios of A to B (1 wall, 2 CPU)
	paste -d/ <(field "$1" "$3") <(field "$2" "$3") | awk -F/ '{ printf "%.4f\n", ($2 > 0) ? $1 / $2 : 0 }' | median
}
first=${names[1]%-log}
echo "median of $R rounds of $N runs each in $dir; milliseconds a run"
printf '%-26s %8s %8s %10s %10s %12s %12s\n' command wall CPU "wall/ref" "CPU/ref" "wall/$first" "CPU/$first"
for n in "${names[@]}"; do
	w=$(field "$n" 1 | median) c=$(field "$n" 2 | median)
	if [ "$n" = gitlog ]; then
		printf '%-26s %8s %8s\n' "git log -20 (ref)" "$w" "$c"
		continue
	fi
	same=$first-${n##*-}
	printf '%-26s %8s %8s %9sx %9sx %11sx %11sx\n' "${n%-*}: strom ${n##*-}" "$w" "$c" \
		"$(ratio "$n" gitlog 1)" "$(ratio "$n" gitlog 2)" "$(ratio "$n" "$same" 1)" "$(ratio "$n" "$same" 2)"
done
