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
run strom run --loop --minutes 5 </dev/null || true
run strom task list
run strom log
say git log --stat
git --no-pager log --stat
echo
echo "The demo research is in $demo/research — look around, or delete it."
