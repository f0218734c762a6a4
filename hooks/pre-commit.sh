#!/bin/sh
# strom-hook: pre-commit
# Installed by strom (strom hooks install). It runs the hook you had before, kept as
# pre-commit.strom-chained, then checks the staged .strom/ files: valid against their
# schemas, and no task deleted or (inside an agent's session) reworded.
hook_dir=$(dirname "$0")
if [ -x "$hook_dir/pre-commit.strom-chained" ]; then
	"$hook_dir/pre-commit.strom-chained" "$@" || exit $?
fi
strom_bin=$(command -v strom 2>/dev/null)
if [ -z "$strom_bin" ]; then
	strom_bin=@STROM@
fi
if [ ! -x "$strom_bin" ]; then
	echo "strom pre-commit: strom is not installed here, so .strom/ was not checked (install strom, or run strom hooks install again)" >&2
	exit 0
fi
exec "$strom_bin" hooks pre-commit
