#!/usr/bin/env bash
# Runs every Go fuzz target of the module, each `go test -fuzz` for FUZZTIME
# (default 30s), JOBS of them at a time (default 1), each under `nice -n NICE`
# (default 19). Targets are found by their names (func FuzzX in *_test.go);
# names given as arguments run only those, RUN=regexp only the targets whose
# names match; PARALLEL=n sets -parallel. Each target's output goes to a log of
# its own under LOGS (default a new folder in TMPDIR); with JOBS=1 it is shown as
# it runs too, without the fuzzer's progress lines.
# A failing input is written to the package's testdata/fuzz/FuzzX/; the other
# targets still run, and the summary fails naming the targets that failed (a
# name given that no target has among them): add the input as a regular test,
# fix, commit the input with the fix.
# Go's fuzzing coordinator can end a target that failed nothing with "context
# deadline exceeded" as FUZZTIME runs out (golang/go#75804, go 1.26): a target
# whose only failure is that line, with no failing input written, passes, and the
# summary says so.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-30s}
RUN=${RUN:-.}
GO=${GO:-go}
JOBS=${JOBS:-1}
NICE=${NICE:-19}
if ! [[ $JOBS =~ ^[1-9][0-9]*$ ]]; then
	echo "fuzz.sh: JOBS takes a whole number of targets at a time, 1 or more, not \"$JOBS\"" >&2
	exit 2
fi
par=()
if [ -n "${PARALLEL:-}" ]; then par=(-parallel "$PARALLEL"); fi
LOGS=${LOGS:-$(mktemp -d "${TMPDIR:-/tmp}/strom-fuzz.XXXXXX")}
mkdir -p "$LOGS"

# The targets: pkgs[i] and names[i], in the order of their files.
pkgs=()
names=()
failed=()
while IFS=: read -r file name; do
	if [[ $name =~ $RUN ]] && { [ $# -eq 0 ] || [[ " $* " == *" $name "* ]]; }; then
		pkgs+=("./$(dirname "$file")")
		names+=("$name")
	fi
done < <(grep -r -o -P --include='*_test.go' --exclude-dir=.cache '^func \KFuzz\w+(?=\()' . | sed 's|^\./||' | sort)
for name in "$@"; do
	if ! [[ " ${names[*]} " == *" $name "* ]]; then
		failed+=("$name: no fuzz target has this name (RUN=$RUN)")
	fi
done
if [ ${#names[@]} -eq 0 ] && [ $# -eq 0 ]; then
	failed+=("no fuzz target's name matches RUN=$RUN")
fi

# log is a target's log file: its package's path and its name.
log() {
	local pkg=${1#./}
	echo "$LOGS/${pkg//\//_}.$2.log"
}

# fuzz runs one target into its log and notes its exit status and time beside it.
fuzz() {
	local pkg=$1 name=$2 out rc=0 t0
	out=$(log "$pkg" "$name")
	t0=$(date +%s)
	echo "== $pkg $name ($FUZZTIME)"
	if [ "$JOBS" -eq 1 ]; then
		nice -n "$NICE" "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "${par[@]}" "$pkg" 2>&1 |
			tee "$out" | grep -v '^fuzz: elapsed' || rc=${PIPESTATUS[0]}
	else
		nice -n "$NICE" "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "${par[@]}" "$pkg" >"$out" 2>&1 || rc=$?
	fi
	if [ "$rc" -ne 0 ] && coordinator_stop "$out"; then rc=deadline; fi
	echo "$rc $(($(date +%s) - t0))" >"$out.rc"
	echo "   $pkg $name: exit status ${rc/deadline/1 at the coordinator\'s deadline}, took $(($(date +%s) - t0))s"
}

# coordinator_stop reports whether a target's log failed only by the coordinator's
# deadline: its one failure message is "context deadline exceeded", no failing
# input was written, nothing panicked.
coordinator_stop() {
	local msgs
	msgs=$(grep -v -e '^fuzz: ' -e '^--- FAIL: ' -e '^FAIL' -e '^exit status ' -e '^warning: ' -e '^ok ' "$1" | sed 's/^[[:space:]]*//' | grep . || true)
	[ "$msgs" = "context deadline exceeded" ]
}

# Each target runs in a process group of its own (set -m), so that Ctrl-C or a
# kill of the script stops the targets running, their fuzz workers with them.
set -m
pids=()
stop() {
	for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
	wait
	echo "fuzz.sh: stopped; the logs so far are in $LOGS" >&2
	exit 130
}
trap stop INT TERM
start=$(date +%s)
running=0
for i in "${!names[@]}"; do
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	fuzz "${pkgs[i]}" "${names[i]}" &
	pids+=($!)
	running=$((running + 1))
done
wait
trap - INT TERM

# The summary: every target with its status, time and the fuzzer's last count.
echo "== summary (logs in $LOGS)"
for i in "${!names[@]}"; do
	t="${pkgs[i]} ${names[i]}"
	out=$(log "${pkgs[i]}" "${names[i]}")
	rc=1 took=?
	if [ -s "$out.rc" ]; then read -r rc took <"$out.rc"; fi
	# The rate of the last line is of its last moments only: left out.
	last=$(grep '^fuzz: elapsed' "$out" | tail -n 1 | sed -E 's| \([0-9]+/sec\)||' || true)
	if [ "$rc" = deadline ]; then
		echo "ok   $t  ${took}s  ${last#fuzz: }  (ended by the coordinator's deadline, golang/go#75804: no failing input)"
		continue
	fi
	if [ "$rc" -eq 0 ]; then
		echo "ok   $t  ${took}s  ${last#fuzz: }"
		continue
	fi
	echo "FAIL $t  ${took}s  $out"
	if [ "$JOBS" -gt 1 ]; then grep -v '^fuzz: elapsed' "$out" | tail -n 20 | sed 's/^/     /'; fi
	failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[@]}"
	exit 1
fi
echo "${#names[@]} fuzz targets, each $FUZZTIME, $JOBS at a time, passed in $(($(date +%s) - start))s"
