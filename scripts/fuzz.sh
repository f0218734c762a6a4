#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one `go test -fuzz` at a time, each for
# FUZZTIME (default 30s). Targets are found by their names (func FuzzX in *_test.go).
# A failing input is written to the package's testdata/fuzz/FuzzX/; the other
# targets still run, and the script fails at the end naming the targets that
# failed: add the input as a regular test, fix, commit the input with the fix.
# RUN=regexp runs only the targets whose names match; PARALLEL=n sets -parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-30s}
RUN=${RUN:-.}
GO=${GO:-go}
par=()
if [ -n "${PARALLEL:-}" ]; then par=(-parallel "$PARALLEL"); fi
n=0
failed=()
start=$(date +%s)
while IFS=: read -r file name; do
	pkg=./$(dirname "$file")
	if ! [[ $name =~ $RUN ]]; then continue; fi
	n=$((n + 1))
	echo "== $pkg $name ($FUZZTIME)"
	t0=$(date +%s)
	if ! "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "${par[@]}" "$pkg" 2>&1 | grep -v '^fuzz: elapsed'; then
		echo "FAIL: $pkg $name"
		failed+=("$pkg $name")
	fi
	echo "   took $(($(date +%s) - t0))s"
done < <(grep -r -o -P --include='*_test.go' --exclude-dir=.cache '^func \KFuzz\w+(?=\()' . | sed 's|^\./||' | sort)
if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[@]}"
	exit 1
fi
echo "$n fuzz targets, each $FUZZTIME, passed in $(($(date +%s) - start))s"
