#!/usr/bin/env bash
# Times `strom task list` on a queue of 2,000 tasks (queue.json and the tasks in 20
# files of a hundred, about 900 KB), every task open: the first call after the queue
# changed (the files of the page's tasks validated against their schemas) and the
# calls after it (the memo knows them). Prints the figures BENCHMARKS.md
# records under "A big queue".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
strom="$top/bin/strom"
work=$(mktemp -d "${TMPDIR:-/tmp}/strom-bench-queue.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME="$work" XDG_CONFIG_HOME="$work/.config" XDG_CACHE_HOME="$work/.cache"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
mkdir "$work/repo" && cd "$work/repo"
git init -q
"$strom" init --agent demo >/dev/null
N=${N:-2000}
body="Parish of Tábor, around 1850. Look in the registers and write down what was found, with the sources and page numbers."
mkdir -p .strom/tasks
{
	printf '{\n  "version": 4,\n  "next_id": %d,\n  "done": 0,\n  "tasks": [\n' $((N + 1))
	for i in $(seq 1 "$N"); do
		sep=","; [ "$i" = "$N" ] && sep=""
		printf '    "T-%d open"%s\n' "$i" "$sep"
	done
	printf '  ]\n}\n'
} >.strom/queue.json
# The tasks in files of a hundred ids: T-1-99.json, T-100-199.json, …
for i in $(seq 1 "$N"); do
	lo=$((i / 100 * 100)); f=".strom/tasks/T-$((lo == 0 ? 1 : lo))-$((lo + 99)).json"
	if [ "$i" = 1 ] || [ $((i % 100)) = 0 ]; then
		[ "$i" = 1 ] || printf ']}\n' >>"$prev"
		printf '{"tasks": [\n' >"$f"
	else
		printf ',\n' >>"$f"
	fi
	printf '{"id": "T-%d", "title": "Find the baptism record number %d in the parish books of Tábor", "body": "%s %s", "state": "open", "created": "2026-11-30T09:00:00Z", "updated": "2026-11-30T09:00:00Z"}' "$i" "$i" "$body" "$body" >>"$f"
	prev=$f
done
printf ']}\n' >>"$prev"
ms() { # milliseconds of one run of "$@"
	local start end
	start=$(date +%s%N)
	"$@" >/dev/null
	end=$(date +%s%N)
	echo $(((end - start) / 1000000))
}
first=$(ms "$strom" task list)
later=""
for _ in 1 2 3 4 5; do later+=" $(ms "$strom" task list)"; done
printf 'queue of %d tasks, %d KB\n' "$N" $(($(cat .strom/queue.json .strom/tasks/*.json | wc -c) / 1024))
printf 'strom task list, first after a change  %5d ms\n' "$first"
printf 'strom task list, five times after       %s ms\n' "$later"
