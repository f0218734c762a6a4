#!/usr/bin/env bash
# The cost of a research's age: the commands an agent runs often, strom log, one
# session and a 200-session loop, on a big research (100,000 records, 20,000 tasks,
# 50,000 session commits) and a small one (1,000 records, 100 tasks, 100 commits),
# against git doing the same. Both researches are built in seconds: the history with
# git fast-import, the state files (queue.json, the tasks in files of a hundred, the
# records in files of a hundred tasks) with awk. Prints the ratios BENCHMARKS.md records
# under "A research's age".
#
# STROM names another build to measure (default bin/strom); ONLY=commands stops
# after the commands' table, ONLY=clone after the first commands of fresh clones. R rounds (default 11); in each, N runs (default 10) of every command on both
# researches, one command after the other, so that a change of the machine's load
# falls on all alike. A time is the median of its round means; a ratio is the
# median of the rounds' ratios, each of two times taken in the same round.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
strom="${STROM:-$top/bin/strom}"
# WORK=folder keeps the researches there and measures them again in a later run
# (built once: the big one takes minutes on a slow machine).
if [ -n "${WORK:-}" ]; then
	work=$WORK
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/strom-bench-age.XXXXXX")
	if [ "${KEEP:-}" = 1 ]; then echo "kept in $work"; else trap 'rm -rf "$work"' EXIT; fi
fi
# The floor under every strom command: a Go program that only imports the
# jsonschema release strom depends on, whose init compiles five drafts'
# metaschemas in every process (BENCHMARKS.md, "A research's age").
floor="$work/floor"
mkdir -p "$floor"
printf 'package main\n\nimport (\n\t"os"\n\n\t_ "github.com/santhosh-tekuri/jsonschema/v5"\n)\n\nfunc main() { os.Stdout.WriteString("floor\\n") }\n' >"$floor/main.go"
printf 'module floor\n\ngo 1.26\n\nrequire github.com/santhosh-tekuri/jsonschema/v5 %s\n' \
	"$(cd "$top" && go list -m -f '{{.Version}}' github.com/santhosh-tekuri/jsonschema/v5)" >"$floor/go.mod"
cp "$top/go.sum" "$floor/go.sum"
(cd "$floor" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -o floor .)
# Above the floor, every strom process pays the init of the other libraries strom
# links (a program that imports every package strom's own packages import, and
# does nothing else) and the start of its own binary (strom record without its
# text: a usage error, before any file is read).
libs="$work/libs"
mkdir -p "$libs"
{
	printf 'package main\n\nimport (\n'
	(cd "$top" && go list -deps -f '{{if .Module}}{{if eq .Module.Path "github.com/strom-research/strom"}}{{join .Imports "\n"}}{{end}}{{end}}' ./cmd/strom) |
		grep -v 'strom-research\|/internal\|^internal/\|^vendor/' | sort -u | sed 's/.*/\t_ "&"/'
	printf '\t"os"\n)\n\nfunc main() { os.Stdout.WriteString("libs\\n") }\n'
} | grep -v '^	_ "os"$' >"$libs/main.go"
sed '1s/.*/module libs/' "$top/go.mod" >"$libs/go.mod"
cp "$top/go.sum" "$libs/go.sum"
(cd "$libs" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -ldflags "-s -w" -o libs .)
nowork() { "$strom" record 2>/dev/null || true; }
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME="$work" XDG_CONFIG_HOME="$work/.config" XDG_CACHE_HOME="$work/.cache"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
R=${R:-11}
N=${N:-10}

# research DIR RECORDS TASKS COMMITS [OPEN]: a research repo whose last OPEN tasks
# (default a quarter) are open and the others done.
research() {
	local dir=$1 records=$2 tasks=$3 commits=$4 open=${5:-$(($3 / 4))}
	mkdir -p "$dir" && cd "$dir"
	git init -q -b main
	awk -v n="$commits" 'BEGIN {
		for (i = 1; i <= n; i++) {
			msg = sprintf("T-%d: session %d, done\n\nRecorded one line.\n\nStrom-Session: 20261130T%06dZ-%04x\nStrom-Task: T-%d\nStrom-End: done\nStrom-Agent: demo\n", i % 97 + 1, i, i % 1000000, i % 65536, i % 97 + 1)
			body = sprintf("session %d\n", i)
			printf "blob\nmark :%d\ndata %d\n%s\n", 2 * i - 1, length(body), body
			printf "commit refs/heads/main\nmark :%d\ncommitter bench <bench@example.com> %d +0000\ndata %d\n%s", 2 * i, 1790000000 + 60 * i, length(msg), msg
			if (i > 1) printf "from :%d\n", 2 * i - 2
			printf "M 100644 :%d notes.txt\n\n", 2 * i - 1
		}
	}' | git fast-import --quiet
	git reset -q --hard
	"$strom" init --agent demo >/dev/null
	mkdir -p .strom/tasks
	# queue.json of version 4 and the tasks in files of a hundred ids
	# (tasks/T-100-199.json), byte for byte as strom writes them.
	awk -v n="$tasks" -v open="$open" 'BEGIN {
		printf "{\n  \"version\": 4,\n  \"next_id\": %d,\n  \"done\": %d,\n  \"tasks\": [", n + 1, n - open >".strom/queue.json"
		cur = ""
		for (i = 1; i <= n; i++) {
			if (i > n - open) printf "%s\n    \"T-%d open\"", (i > n - open + 1 ? "," : ""), i >".strom/queue.json"
			lo = int(i / 100) * 100
			f = sprintf(".strom/tasks/T-%d-%d.json", (lo == 0 ? 1 : lo), lo + 99)
			if (f != cur) {
				if (cur != "") { printf "\n  ]\n}\n" >cur; close(cur) }
				printf "{\n  \"tasks\": [\n" >f
				cur = f
			} else
				printf ",\n" >f
			printf "    {\n      \"id\": \"T-%d\",\n      \"title\": \"Find the baptism record number %d in the parish books of Tábor\",\n", i, i >f
			printf "      \"body\": \"Parish of Tábor, around 1850. Look in the registers and write down what was found, with the sources and page numbers.\",\n" >f
			printf "      \"state\": \"%s\",\n      \"created\": \"2026-11-30T09:00:00Z\",\n      \"updated\": \"2026-11-30T09:00:00Z\"\n    }", (i > n - open ? "open" : "done") >f
		}
		if (cur != "") printf "\n  ]\n}\n" >cur
		printf "\n  ]\n}\n" >".strom/queue.json"
	}'
	# The records beside their tasks, in files of a hundred, as strom appends them
	# (.strom/records/T-100-199.jsonl, …): no migration falls into a measured command.
	mkdir -p .strom/records
	LC_ALL=C awk -v n="$records" -v tasks="$tasks" 'BEGIN {
		for (i = 1; i <= n; i++) {
			t = i % tasks + 1
			lo = int(t / 100) * 100
			f = sprintf(".strom/records/T-%d-%d.jsonl", lo < 1 ? 1 : lo, lo + 99)
			printf "{\"version\":1,\"time\":\"2026-11-30T09:%02d:%02dZ\",\"session\":\"20261130T%06dZ-%04x\",\"task\":\"T-%d\",\"text\":\"Register %d, page %d: no baptism of Anna Novak between 1848 and 1852; the index of the parish of Tábor lists none either.\"}\n", i % 60, i % 60, i % 1000000, i % 65536, t, i, i % 400 >f
		}
	}'
	git add -A && git commit -q --no-verify -m "the research"
	cd - >/dev/null
}

start=$(date +%s%N)
[ -d "$work/small/.strom" ] || research "$work/small" 1000 100 100 &
[ -d "$work/big/.strom" ] || research "$work/big" 100000 20000 50000 &
wait
printf 'built both researches in %d ms: big has %s commits, %d KB queue.json, %d files of tasks (%d KB), %d KB of records in %d files\n' \
	$((($(date +%s%N) - start) / 1000000)) "$(git -C "$work/big" rev-list --count HEAD)" \
	$(($(wc -c <"$work/big/.strom/queue.json") / 1024)) "$(find "$work/big/.strom/tasks" -name 'T-*.json' | wc -l)" \
	$(($(cat "$work/big/.strom/tasks"/*.json | wc -c) / 1024)) $(($(cat "$work/big/.strom/records"/*.jsonl | wc -c) / 1024)) \
	"$(find "$work/big/.strom/records" -name '*.jsonl' | wc -l)"

# The first command after a checkout builds the indexes under .strom/run/: once.
for s in small big; do
	cd "$work/$s"
	t0=$(date +%s%N)
	"$strom" status >/dev/null
	STROM_SESSION=bench STROM_TASK=T-7 "$strom" task >/dev/null
	printf 'first commands on %s (the indexes built): %d ms\n' "$s" $((($(date +%s%N) - t0) / 1000000))
done

# The first command after git clone of the big research, beside the same command
# run again at once (warm): wall and CPU time (perf stat's task-clock), the median of C
# fresh clones (default 5), and what the clone's .strom/run/ holds afterwards.
clone_first() {
	local rounds=${C:-5} cmd i kind
	declare -A t
	for i in $(seq 1 "$rounds"); do
		rm -rf "$work/clone"
		git clone -q "$work/big" "$work/clone"
		cd "$work/clone"
		for cmd in task status list record; do
			for kind in cold warm; do
				case $cmd in
				task) set -- env STROM_SESSION=bench STROM_TASK=T-7 "$strom" task ;;
				status) set -- "$strom" status ;;
				list) set -- "$strom" task list ;;
				record) set -- "$strom" record --task T-8 "Register 12 checked" ;;
				esac
				t0=$(date +%s%N)
				perf stat -x, -e task-clock -o "$work/time" "$@" >/dev/null
				t[$cmd-$kind-wall]+=" $(( ($(date +%s%N) - t0) / 1000 ))"
				t[$cmd-$kind-cpu]+=" $(awk -F, '$3 == "task-clock" { printf "%d", $1 * 1000 }' "$work/time")"
			done
		done
		run_kb=$(du -sk .strom/run 2>/dev/null | cut -f1)
		cd "$work"
	done
	printf '\nthe first command after git clone of the big research (median of %d clones; ms):\n' "$rounds"
	printf '| command | cold wall | warm wall | cold/warm | cold CPU | warm CPU | cold/warm |\n|---|---|---|---|---|---|---|\n'
	for cmd in task status list record; do
		cw=$(echo "${t[$cmd-cold-wall]}" | median1000) ww=$(echo "${t[$cmd-warm-wall]}" | median1000)
		cc=$(echo "${t[$cmd-cold-cpu]}" | median1000) wc=$(echo "${t[$cmd-warm-cpu]}" | median1000)
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$cmd" "$cw" "$ww" "$(div "$cw" "$ww")" "$cc" "$wc" "$(div "$cc" "$wc")"
	done
	printf '.strom/run/ of the clone afterwards: %d KB\n' "$run_kb"
}
median1000() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 / 1000 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
clone_first
if [ "${ONLY:-}" = clone ]; then exit 0; fi

in_session() { STROM_SESSION=bench STROM_TASK=T-7 "$strom" "$@"; }
# The agent's record: inside a session when the harness accepts a session that is
# not live, else for the task by name (the same write). The records go to T-8, so
# that the records of T-7, which its strom task shows, stay the few every task has
# and do not grow by one with every record measured.
cd "$work/small"
if STROM_SESSION=bench STROM_TASK=T-8 "$strom" record "checked" >/dev/null 2>&1; then
	record() { STROM_SESSION=bench STROM_TASK=T-8 "$strom" record "Register 12 checked" >/dev/null; }
else
	echo "strom record inside a session needs a live one: measured with --task"
	record() { "$strom" record --task T-8 "Register 12 checked" >/dev/null; }
fi

time_cmd() { # prints the mean wall and CPU milliseconds of N runs of "$@", as wall/cpu
	local start end
	start=$(date +%s%N)
	for _ in $(seq 1 "$N"); do "$@" >/dev/null; done
	end=$(date +%s%N)
	# The CPU time (user and system) of the loop's processes: the second line of
	# times, "XmY.YYYs XmY.YYYs" (written to a file: in a pipe, times would run in
	# a process of its own, which has no children).
	times >"$work/times"
	awk -v s="$start" -v e="$end" -v n="$N" 'NR == 2 {
		split($1, u, /[ms]/); split($2, y, /[ms]/)
		printf "%.3f/%.3f", (e - s) / 1000000 / n, (60 * (u[1] + y[1]) + u[2] + y[2]) * 1000 / n }' "$work/times"
}
# strom log reads the history with one git log each time, so the first strom log
# after a session's commit costs what any other does; it is measured too, as it was
# when strom kept an answer per HEAD: before each run, HEAD moves one session
# commit forward along a line of them made here with the tree of HEAD. The time of
# the move alone is taken off: it is measured as the same move along the same line,
# without the log.
cd "$work/big"
line=()
tip=$(git rev-parse HEAD)
tree=$(git rev-parse 'HEAD^{tree}')
for i in $(seq 1 $((2 * R * N))); do
	tip=$(printf 'T-%d: session %d after, done\n\nStrom-Session: 20261201T%06dZ-beef\nStrom-Task: T-%d\nStrom-End: done\nStrom-Agent: demo\n' \
		$((i % 97 + 1)) "$i" "$i" $((i % 97 + 1)) | git commit-tree "$tree" -p "$tip")
	line+=("$tip")
done
echo 0 >"$work/moved" # the count of moves, in a file: time_cmd runs in a subshell
move() {
	local moved
	read -r moved <"$work/moved"
	echo $((moved + 1)) >"$work/moved"
	git update-ref HEAD "${line[$moved]}"
}
log_moved() { move && "$strom" log; }
names=(ref gitlog floor libs nowork logmoved refmoved)
for s in small big; do names+=("task-$s" "record-$s" "status-$s" "list-$s" "show-$s" "add-$s" "log-$s"); done
declare -A runs
for _ in $(seq 1 "$R"); do
	cd "$work/big"
	runs[ref]+=" $(time_cmd git rev-parse HEAD)"
	runs[gitlog]+=" $(time_cmd git log -20)"
	runs[floor]+=" $(time_cmd "$floor/floor")"
	runs[libs]+=" $(time_cmd "$libs/libs")"
	runs[nowork]+=" $(time_cmd nowork)"
	runs[logmoved]+=" $(time_cmd log_moved)"
	runs[refmoved]+=" $(time_cmd move)"
	for s in small big; do
		cd "$work/$s"
		runs[task-$s]+=" $(time_cmd in_session task)"
		runs[record-$s]+=" $(time_cmd record)"
		runs[status-$s]+=" $(time_cmd "$strom" status)"
		runs[list-$s]+=" $(time_cmd "$strom" task list)"
		runs[show-$s]+=" $(time_cmd "$strom" task show T-7)"
		runs[add-$s]+=" $(time_cmd "$strom" task add "Look in the register of births, 1850")"
		runs[log-$s]+=" $(time_cmd "$strom" log)"
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# Each run is wall/cpu: wall and cpu hold the rounds' figures of each.
declare -A wall cpu med cmed
for n in "${names[@]}"; do
	wall[$n]=$(echo "${runs[$n]}" | tr ' ' '\n' | grep . | cut -d/ -f1 | tr '\n' ' ')
	cpu[$n]=$(echo "${runs[$n]}" | tr ' ' '\n' | grep . | cut -d/ -f2 | tr '\n' ' ')
	med[$n]=$(echo "${wall[$n]}" | median)
	cmed[$n]=$(echo "${cpu[$n]}" | median)
done
# ratio TABLE A B: the median of the rounds' ratios of A to B in TABLE (wall or
# cpu), both measured in the same round, so that a change of the machine's load
# between rounds falls on neither.
ratio() {
	local -n t=$1
	paste -d/ <(echo "${t[$2]}" | tr ' ' '\n' | grep .) <(echo "${t[$3]}" | tr ' ' '\n' | grep .) |
		awk -F/ '{ printf "%.4f\n", ($2 > 0) ? $1 / $2 : 0 }' | median
}
echo "median of $R rounds of $N runs each; wall and CPU (user + system) milliseconds a run"
printf '%-30s %8s %8s %8s %8s %9s %9s %9s %9s\n' command small big "small" "big" big/small big/small big/ref big/ref
printf '%-30s %8s %8s %8s %8s %9s %9s %9s %9s\n' "" wall wall CPU CPU wall CPU wall CPU
printf '%-30s %8s %8.2f %8s %8.2f\n' "git rev-parse HEAD" "" "${med[ref]}" "" "${cmed[ref]}"
printf '%-30s %8s %8.2f %8s %8.2f\n' "git log -20" "" "${med[gitlog]}" "" "${cmed[gitlog]}"
for n in floor libs nowork; do
	case $n in floor) label="Go + jsonschema (the floor)" ;; libs) label="the libraries strom links" ;; nowork) label="strom, no work (a usage error)" ;; esac
	printf '%-30s %8s %8.2f %8s %8.2f %9s %9s %8sx %8sx\n' "$label" "" "${med[$n]}" "" "${cmed[$n]}" "" "" "$(ratio wall $n ref)" "$(ratio cpu $n ref)"
done
for c in task record status list show add log; do
	label=$c ref=ref
	case $c in task) label="strom task (in a session)" ;; record) label="strom record" ;; status) label="strom status" ;; list) label="strom task list" ;; show) label="strom task show" ;; add) label="strom task add" ;; log) label="strom log (ref: git log -20)" ref=gitlog ;; esac
	printf '%-30s %8.2f %8.2f %8.2f %8.2f %8sx %8sx %8sx %8sx\n' "$label" "${med[$c-small]}" "${med[$c-big]}" "${cmed[$c-small]}" "${cmed[$c-big]}" \
		"$(ratio wall "$c-big" "$c-small")" "$(ratio cpu "$c-big" "$c-small")" "$(ratio wall "$c-big" $ref)" "$(ratio cpu "$c-big" $ref)"
done
printf 'strom log at 50,000 commits, CPU: %sx git log -20 (the floor %sx, strom with no work %sx)\n' "$(ratio cpu log-big gitlog)" "$(ratio cpu floor gitlog)" "$(ratio cpu nowork gitlog)"
# The first strom log after a session's commit: the round's time less the ref's.
moved_ratio=$(paste -d' ' <(echo "${cpu[logmoved]}" | tr ' ' '\n' | grep .) <(echo "${cpu[refmoved]}" | tr ' ' '\n' | grep .) \
	<(echo "${cpu[gitlog]}" | tr ' ' '\n' | grep .) | awk '{ printf "%.4f\n", ($1 - $2) / $3 }' | median)
printf 'strom log just after a session commit (HEAD moved one commit): %.2f ms CPU, %sx git log -20\n' \
	"$(awk -v a="${cmed[logmoved]}" -v b="${cmed[refmoved]}" 'BEGIN { print a - b }')" "$moved_ratio"

[ "${ONLY:-}" = commands ] && exit 0

# One session, an agent that marks its task done at once, then one that writes a
# record first (the session's commit then holds the records too): wall time of
# strom run, small and big alternating S times, the median of each side.
S=${S:-11}
sessions() { # sessions LABEL SCRIPT: prints LABEL's line for agent sh -c SCRIPT
	local label=$1 script=$2 s t0 small big
	local -A took
	for _ in $(seq 1 "$S"); do
		for s in small big; do
			cd "$work/$s"
			t0=$(date +%s%N)
			"$strom" run --agent command -- sh -c "$script" >/dev/null
			took[$s]+=" $(awk -v s="$t0" -v e="$(date +%s%N)" 'BEGIN { printf "%.3f", (e - s) / 1000000 }')"
		done
	done
	small=$(echo "${took[small]}" | median)
	big=$(echo "${took[big]}" | median)
	printf '%s: small %s ms, big %s ms, big/small %sx\n' "$label" "$small" "$big" "$(div "$big" "$small")"
}
sessions 'one session (strom run, agent: strom done)' 'strom done'
sessions 'one session with a record (agent: strom record …, strom done)' 'strom record "Register 12 checked: no baptism of Anna Novak" && strom done'
# The peak memory of strom run on the big research.
cd "$work/big"
peak=$( { /usr/bin/time -f '%M' "$strom" run --agent command -- sh -c 'strom done' >/dev/null; } 2>&1 | tail -1)
printf 'peak memory of strom run on the big research: %d KiB (%.1f MiB)\n' "$peak" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"

# 200 sessions in one --loop against a shell loop doing the same agent's work and
# git add -A && git commit, each on a fresh research of 200 open tasks.
L=${L:-200}
research "$work/loop-strom" 1000 "$L" 100 "$L"
research "$work/loop-shell" 1000 "$L" 100 "$L"
cd "$work/loop-strom"
t0=$(date +%s%N)
"$strom" run --loop --agent command -- sh -c 'strom done' >/dev/null
loop_strom=$((($(date +%s%N) - t0) / 1000000))
sessions=$(git log --oneline --grep=Strom-Session: --since=@$(( $(date +%s) - 3600 )) | wc -l)
cd "$work/loop-shell"
t0=$(date +%s%N)
for i in $(seq 1 "$L"); do
	sh -c "$strom done T-$i" >/dev/null
	git add -A && git commit -q -m "T-$i"
done
loop_shell=$((($(date +%s%N) - t0) / 1000000))
printf '%d-session --loop: strom %d ms, shell loop %d ms, ratio %sx (%d session commits)\n' "$L" "$loop_strom" "$loop_shell" "$(div "$loop_strom" "$loop_shell")" "$sessions"
