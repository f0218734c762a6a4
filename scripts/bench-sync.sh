#!/usr/bin/env bash
# Several machines on one research (sync.remote): CLONES clones (default 5) of
# one research with TASKS open tasks (default 60) each run strom run --loop at
# once against a bare repository by path, the agent working a fixed WORK seconds
# (default 2) on each task; before them, in the same run, one clone alone works
# SOLO tasks (default 12) of a research of its own the same way. Prints the
# figures BENCHMARKS.md records under "Several machines": the throughput of the
# clones against the one clone's, the sessions of each clone, how each run
# ended, tasks worked twice, session commits missing on the remote, claim refs
# left there; and exits 1 when a figure misses the issue's (every clone at least
# one session, no run ending with an error, throughput at least 3.5 times,
# nothing worked twice or missing, no claim left).
#
# Each run's processor time (strom and all it starts: git, the agent) is
# printed per session, for judging the figure apart from the machine's load.
# STROM names another build to measure (default bin/strom); KEEP=1 keeps the
# work folder; TRACE=1 times every git the runs start (a shim on PATH, which
# costs a little itself) and prints, per phase, the git processes by command
# and the pushes the remote refused.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
strom="${STROM:-$top/bin/strom}"
CLONES=${CLONES:-5}
TASKS=${TASKS:-60}
SOLO=${SOLO:-12}
WORK=${WORK:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/strom-bench-sync.XXXXXX")
if [ "${KEEP:-}" = 1 ]; then echo "kept in $work"; else trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/bin"
ln -s "$strom" "$work/bin/strom"
if [ "${TRACE:-}" = 1 ]; then
	# Every git the runs start, timed: exit status, wall, user and system
	# seconds and the command line, a line each in git.trace.
	real_git=$(command -v git)
	printf '#!/bin/sh\nexec /usr/bin/time -a -o "%s" -f "%%x %%e %%U %%S %%C" %s "$@"\n' "$work/git.trace" "$real_git" >"$work/bin/git"
	chmod +x "$work/bin/git"
fi
export PATH="$work/bin:$PATH"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME="$work" XDG_CONFIG_HOME="$work/.config" XDG_CACHE_HOME="$work/.cache" XDG_STATE_HOME="$work/.state"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

# The agent: WORK seconds of work, a file of its own, a record, done.
cat >"$work/agent.sh" <<AGENT
#!/bin/sh
sleep $WORK
mkdir -p notes
echo "\$STROM_TASK on \$STROM_HOST" > "notes/\$STROM_TASK-\$STROM_SESSION.txt"
strom record "worked \$STROM_TASK" >/dev/null
strom done >/dev/null
AGENT

# research NAME N: a research of N open tasks shared through the bare
# repository NAME.git.
research() {
	local seed="$work/$1-seed"
	git init -q -b main "$seed"
	(
		cd "$seed"
		strom init --agent command >/dev/null
		for i in $(seq 1 "$2"); do strom task add "Find register $i" >/dev/null; done
		strom config set sync.remote origin --for-tree >/dev/null
		git add -A && git commit -q -m "the research"
	)
	git clone -q --bare "$seed" "$work/$1.git"
}

# runs NAME CLONE...: strom run --loop in each clone at once (a clone of
# NAME.git each), each run's output in CLONE.out and its exit status in
# CLONE.rc; prints the seconds from the first start to the last end.
runs() {
	local name=$1
	shift
	for c in "$@"; do git clone -q "$work/$name.git" "$work/$c"; done
	local start end
	start=$(date +%s.%N)
	for c in "$@"; do
		(
			cd "$work/$c"
			rc=0
			STROM_HOST=$c /usr/bin/time -f '%U %S' -o "$work/$c.cpu" strom run --loop --agent command -- sh "$work/agent.sh" >"$work/$c.out" 2>&1 || rc=$?
			echo "$rc" >"$work/$c.rc"
		) &
	done
	wait
	end=$(date +%s.%N)
	echo "$start $end" | awk '{printf "%.1f", $2 - $1}'
}

# check NAME TASKS CLONE...: the remote's figures, one line each, and 1 when
# one misses.
check() {
	local name=$1 tasks=$2 bad=0
	shift 2
	local remote="$work/$name.git"
	local sessions twice missing=0 claims
	sessions=$(git --git-dir="$remote" log --format='%(trailers:key=Strom-Task,valueonly,separator=)' main | grep -c . || true)
	twice=$(git --git-dir="$remote" log --format='%(trailers:key=Strom-Task,valueonly,separator=)' main | grep . | sort | uniq -d | wc -l)
	for c in "$@"; do
		for h in $(git -C "$work/$c" log --format='%H %(trailers:key=Strom-Session,valueonly,separator=)' | awk 'NF == 2 {print $1}'); do
			git --git-dir="$remote" merge-base --is-ancestor "$h" main || missing=$((missing + 1))
		done
	done
	claims=$(git --git-dir="$remote" for-each-ref refs/strom/ | wc -l)
	echo "  sessions on the remote: $sessions of $tasks tasks; worked twice: $twice; session commits not on the remote: $missing; claim refs left: $claims"
	[ "$sessions" = "$tasks" ] && [ "$twice" = 0 ] && [ "$missing" = 0 ] && [ "$claims" = 0 ] || bad=1
	for c in "$@"; do
		local n last
		n=$(grep -c '^▶ session' "$work/$c.out" || true)
		last=$(tail -1 "$work/$c.out")
		echo "  $c: $n sessions, exit $(cat "$work/$c.rc"): $last"
		if [ "$n" -lt 1 ] || [ "$(cat "$work/$c.rc")" != 0 ] || [[ "$last" == *"stopped: error"* ]]; then bad=1; fi
	done
	return $bad
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
research solo "$SOLO"
t1=$(runs solo alone)
echo "1 clone, $SOLO tasks of ${WORK}s: ${t1}s"
ok=0
check solo "$SOLO" alone || ok=1

research shared "$TASKS"
clones=()
for i in $(seq 1 "$CLONES"); do clones+=("machine$i"); done
t5=$(runs shared "${clones[@]}")
echo "$CLONES clones, $TASKS tasks of ${WORK}s: ${t5}s"
check shared "$TASKS" "${clones[@]}" || ok=1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# cpu CLONE...: the processor seconds of the runs (user and system, their
# children included) over the sessions they worked.
cpu() {
	local secs=0 n=0
	for c in "$@"; do
		secs=$(awk -v s="$secs" '{print s + $1 + $2}' "$work/$c.cpu")
		n=$((n + $(grep -c '^▶ session' "$work/$c.out" || true)))
	done
	awk -v s="$secs" -v n="$n" 'BEGIN {printf "%.1f s for %d sessions, %.2f s a session", s, n, s / n}'
}
echo "processor time: 1 clone $(cpu alone); $CLONES clones $(cpu "${clones[@]}")"
if [ "${TRACE:-}" = 1 ]; then
	# The trace's lines before the shared research's seed are the one clone's.
	split=$(grep -n "init -q -b main $work/shared-seed" "$work/git.trace" | cut -d: -f1)
	for part in "1,${split}p alone" "${split},\$p shared"; do
		set -- $part
		echo "git of the $2 runs (command: processes/processor seconds):"
		sed -n "$1" "$work/git.trace" | grep -v '^Command exited' | awk '{
			s = $6; i = 6
			while (s ~ /^-/) { if (s == "-C" || s == "-c" || s == "--git-dir") i += 2; else i++; s = $i }
			n[s]++; c[s] += $3 + $4; all++; cpu += $3 + $4
			if (s == "push") { kind = ($0 ~ /refs\/heads\//) ? "branch" : "claim"; p[kind " " ($1 == 0 ? "accepted" : "refused")]++ }
		} END {
			line = "  "; for (k in n) line = line sprintf("%s %d/%.1f  ", k, n[k], c[k]); print line
			printf "  %d processes, %.1f s; pushes:", all, cpu; for (k in p) printf " %s %d,", k, p[k]; print ""
		}'
	done
fi

awk -v t1="$t1" -v n1="$SOLO" -v t5="$t5" -v n5="$TASKS" -v k="$CLONES" 'BEGIN {
	r1 = n1 / t1; r5 = n5 / t5
	printf "throughput: 1 clone %.2f tasks/s, %d clones %.2f tasks/s: %.2fx (want >= 3.5x)\n", r1, k, r5, r5 / r1
	exit (r5 / r1 >= 3.5 ? 0 : 1)
}' || ok=1
exit $ok
