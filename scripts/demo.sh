#!/usr/bin/env bash
# make demo: a research repo with sample tasks, worked by the built-in demo agent,
# ending with its git log. Everything happens in a temporary folder.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
strom="$top/bin/strom"
demo=$(mktemp -d "${TMPDIR:-/tmp}/strom-demo.XXXXXX")
export HOME="$demo/home" XDG_CONFIG_HOME="$demo/home/.config"
mkdir -p "$HOME"
export GIT_CONFIG_GLOBAL="$demo/home/.gitconfig"
git config --global user.name "Demo Person"
git config --global user.email "demo@example.com"
git config --global init.defaultBranch main
export PATH="$top/bin:$PATH"
# The demo agent "works" in short steps so the demo takes seconds, not hours.
export STROM_DEMO_STEP=${STROM_DEMO_STEP:-300ms}

cd "$demo"
mkdir research && cd research
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
run() { say "$*"; "$@"; }

run strom init --agent demo
run strom task add "Find the baptism of Anna Novak" --body "Parish of Tábor, born around 1850; parents Jan Novak and Marie."
run strom task add "Find the marriage of Jan Novak and Marie" --body "Probably Tábor or Sezimovo Ústí, 1845–1849."
run strom task add "List the children of Jan and Marie Novak" --body "Baptisms 1846–1865 in the same parish."
run strom task list

# The research's menu, used once as a person would: "Let the agent work on its own"
# → "Work through the queue in this order" → 1, then leave. script(1) gives it a
# terminal; ACCESSIBLE=1 makes it ask with numbered options, so the answers can be
# typed by this script.
say 'strom    (the menu: 2 Let the agent work on its own, 1 in this order, 1 task, 5 leave)'
if command -v script >/dev/null 2>&1; then
	sessions() { git log --format=%\(trailers:key=Strom-Session,valueonly\) | grep -c . || true; }
	before=$(sessions)
	{
		sleep 1; echo 2; sleep 0.5; echo 1; sleep 0.5; echo 1
		# leave once the session's commit is made
		for _ in $(seq 600); do [ "$(sessions)" -gt "$before" ] && break; sleep 0.2; done
		sleep 1; echo 5; sleep 1
	} | ACCESSIBLE=1 script -qec "strom menu" /dev/null || true
else
	echo "(script(1) is not installed here: the menu needs a terminal, so this step is left out)"
fi

run strom run --loop --minutes 5 </dev/null || true
run strom task list
run strom log
say git log --stat
git --no-pager log --stat
echo
echo "The demo research is in $demo/research — look around, or delete it."
