#!/usr/bin/env bash
# A session that writes many new files against the shell commit of the same files:
# in a research of TRACKED files (default 20,000), one round unpacks FILES new files
# (default 10,000) and commits them, once as a strom session (`strom run --max 1`
# with an agent that unpacks them, records and ends its task) and once as the shell
# would (`tar x && git add -A && git commit`). The sides alternate R rounds (default
# 7) on two copies of the research, so that a change of the machine's load falls on
# both alike; a ratio is the median of the rounds' ratios, wall and CPU (the user and
# system time of the round's processes, bash's times). Prints the figures
# BENCHMARKS.md records under "A session that writes many files".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
strom="${STROM:-$top/bin/strom}"
work=$(mktemp -d "${TMPDIR:-/tmp}/strom-bench-files.XXXXXX")
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME="$work" XDG_CONFIG_HOME="$work/.config" XDG_CACHE_HOME="$work/.cache"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export PATH="$(dirname "$strom"):$PATH"
R=${R:-7}
TRACKED=${TRACKED:-20000}
FILES=${FILES:-10000}

# The new files, as a tar the agent and the shell unpack alike.
mkdir -p "$work/new"
(cd "$work/new" && awk -v n="$FILES" 'BEGIN { for (i = 0; i < n; i++) { d = sprintf("found/%03d", i % 100); f = d "/note-" i ".txt"; if (!(d in made)) { system("mkdir -p " d); made[d] = 1 } print "a record of the parish, page " i > f; close(f) } }')
tar -C "$work/new" -cf "$work/new.tar" found

# research DIR: TRACKED files in folders of a hundred, committed, and a strom
# research with one task per round.
research() {
	mkdir -p "$1" && cd "$1"
	git init -q -b main
	awk -v n="$TRACKED" 'BEGIN { for (i = 0; i < n; i++) { d = sprintf("old/%03d", i % 200); f = d "/page-" i ".txt"; if (!(d in made)) { system("mkdir -p " d); made[d] = 1 } print "page " i > f; close(f) } }'
	git add -A && git commit -qm "the archive's pages"
	"$strom" init --agent demo >/dev/null
	for i in $(seq "$R"); do "$strom" task add "Round $i" >/dev/null; done
	git add -A && git commit -qm tasks
	cd "$work"
}
research "$work/strom"
research "$work/shell"

measure() { # prints wall/cpu milliseconds of "$@"
	local s e
	s=$(date +%s%N)
	( "$@" ) >/dev/null 2>&1
	e=$(date +%s%N)
	# Bash's times: the children's user and system time (its second line).
	times >"$work/times"
	awk -v s="$s" -v e="$e" 'NR == 2 { split($1, u, /m|s/); split($2, y, /m|s/); printf "%.1f/%.1f\n", (e - s) / 1000000, (60 * (u[1] + y[1]) + u[2] + y[2]) * 1000 }' "$work/times"
}
strom_round() {
	cd "$work/strom"
	"$strom" run --max 1 --agent command -- sh -c "tar -xf '$work/new.tar' && mv found found-\$STROM_SESSION && strom record 'the pages unpacked' && strom done"
}
shell_round() {
	cd "$work/shell"
	tar -xf "$work/new.tar" && mv found "found-$1"
	git add -A && git commit -qm "round $1"
}

# Each measure runs in a command substitution, a fresh process: its times count only
# the round's own children.
ratios_wall=() ratios_cpu=()
for i in $(seq "$R"); do
	a=$(measure strom_round)
	b=$(measure shell_round "$i")
	sc=$(echo "$a" | cut -d/ -f2) gc=$(echo "$b" | cut -d/ -f2)
	sw=$(echo "$a" | cut -d/ -f1) gw=$(echo "$b" | cut -d/ -f1)
	printf 'round %d: strom %s ms wall %s ms cpu · shell %s ms wall %s ms cpu\n' "$i" "$sw" "$sc" "$gw" "$gc"
	ratios_wall+=("$(awk -v a="$sw" -v b="$gw" 'BEGIN { printf "%.3f", a / b }')")
	ratios_cpu+=("$(awk -v a="$sc" -v b="$gc" 'BEGIN { printf "%.3f", a / b }')")
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cd "$work/strom"
if [ "$(git log --format=%s | grep -c 'Round')" -ne "$R" ]; then
	echo "strom made $(git log --format=%s | grep -c 'Round') session commits, want $R" >&2
	exit 1
fi
printf 'a session with %d new files in a research of %d: wall %sx, CPU %sx the shell commit (median of %d rounds)\n' \
	"$FILES" "$TRACKED" "$(printf '%s\n' "${ratios_wall[@]}" | median)" "$(printf '%s\n' "${ratios_cpu[@]}" | median)" "$R"
