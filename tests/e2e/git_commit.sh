#!/usr/bin/env bash
# The commit a receipt records is the tree's commit when the binary was built (taken on every
# build, not at configure time), with "-dirty" when a tracked file differed. Run right after a
# build, as CI does: a binary built before the last commit fails here, which is the point.
source "$(dirname "$0")/lib.sh"
"$KGATE" env > "$WORK/env.json" 2> /dev/null; check "kgate env" 0 $?
recorded=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kgate"]["git_commit"])' "$WORK/env.json")
if git -C "$SRC" rev-parse HEAD > "$WORK/head" 2> /dev/null; then
  expected=$(cat "$WORK/head")
  [ -n "$(git -C "$SRC" status --porcelain --untracked-files=no)" ] && expected="$expected-dirty"
else
  expected=unknown
fi
[ "$recorded" = "$expected" ]
check "recorded commit '$recorded' is the tree's '$expected' (if not: the binary predates the last commit or edit; rebuild, then rerun ctest)" 0 $?
finish
