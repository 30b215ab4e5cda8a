#!/usr/bin/env bash
# --help answers questions: every subcommand of this file's owners names its exit codes and
# shows an example; run --help explains the gates (strict: the interval's lower bound > 1;
# strict_median: the median rule), the default receipt name and --force.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
"$KGATE" --help >top.txt; check "kgate --help" 0 $?
expect_grep "top: --version" "--version" top.txt
expect_grep "top: exit codes" "Exit codes: 0 ok, 1 gate/audit failure, 2 usage or input error, 3 device/runtime failure" top.txt
# The words people type: help, help SUBCOMMAND, version and -V answer like --help and --version.
"$KGATE" help >help.txt; check "kgate help" 0 $?
cmp -s help.txt top.txt; check "kgate help prints kgate --help" 0 $?
"$KGATE" help audit >help_audit.txt; check "kgate help audit" 0 $?
"$KGATE" audit --help | cmp -s - help_audit.txt; check "kgate help audit prints kgate audit --help" 0 $?
"$KGATE" --version >version.txt; check "kgate --version" 0 $?
for w in version -V; do
  "$KGATE" $w | cmp -s - version.txt; check "kgate $w prints kgate --version" 0 $?
done
"$KGATE" help nosuch >/dev/null 2>err.txt; check "kgate help of an unknown subcommand" 2 $?
expect_grep "help nosuch: names the word" "unknown subcommand 'nosuch'" err.txt
for sc in list env run audit gate keygen carryover index sanitize accept; do
  "$KGATE" $sc --help >$sc.txt; check "$sc --help" 0 $?
  expect_grep "$sc --help: exit codes" "^Exit codes: 0 " $sc.txt
  expect_grep "$sc --help: an example" "^  kgate $sc " $sc.txt
done
expect_grep "run: strict is the interval rule" "strict  *resolved faster: the lower bound of the ratio's 99 % interval" run.txt
expect_grep "run: strict_median is the median rule" "strict_median  *the median rule: median ratio > 1" run.txt
for g in "limit(L)" "drift(D)" parity fallback correct; do expect_grep "run: gate $g" "^  $g  " run.txt; done
expect_grep "run: the default receipt name" "<out-dir>/<table>.<candidate>.vs.<baseline>" run.txt
expect_grep "run: --force" "^  --force  *overwrite an existing receipt" run.txt
expect_grep "run: --json" "^  --json " run.txt
expect_grep "run: exit 2 for an existing receipt" "an existing receipt without --force" run.txt
expect_grep "gate: failing gates explained" "the threshold it was judged against" gate.txt
for sc in list audit gate carryover index sanitize accept; do expect_grep "$sc: --json" "^  --json " $sc.txt; done
finish
