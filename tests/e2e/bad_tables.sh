#!/usr/bin/env bash
# Bad case tables: exit 2, one line naming file, row and field, and no receipt or journal left.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
try() {  # try name json pattern
  printf '%s' "$2" > "$1.json"
  "$KGATE" run --backend cpu --quiet --cases "$1.json" --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --out "o_$1.json" 2>"$1.err" >/dev/null
  check "$1 exits 2" 2 $?
  [ "$(wc -l <"$1.err")" -eq 1 ]; check "$1: one line" 0 $?
  expect_grep "$1 message" "$3" "$1.err"
  [ ! -e "o_$1.json" ] && [ ! -e "o_$1.json.journal" ]; check "$1: nothing half-written" 0 $?
}
ok='"batch": 2, "nheads": 4, "ngroups": 2, "pool_slots": 4, "state_dtype": "fp32"'
try malformed '{"table": "t", "family": "ssu", "rows": [' "malformed.json: malformed JSON"
try family '{"table": "t", "family": "mamba", "rows": [{"id": "a"}]}' "unknown family 'mamba'"
try missing '{"table": "t", "family": "ssu", "rows": [{"id": "r1", "params": {"batch": 2}}]}' "row 'r1': field 'params.nheads'"
try mistyped "{\"table\": \"t\", \"family\": \"ssu\", \"rows\": [{\"id\": \"r2\", \"params\": {$ok, \"has_z\": 1}}]}" "row 'r2': field 'params.has_z'"
try negative "{\"table\": \"t\", \"family\": \"ssu\", \"rows\": [{\"id\": \"r3\", \"params\": {$ok, \"pad_slots\": -1}}]}" "row 'r3': field 'params.pad_slots'"
try zero '{"table": "t", "family": "ssu", "rows": [{"id": "r4", "params": {"batch": 0, "nheads": 4, "ngroups": 2, "pool_slots": 4, "state_dtype": "fp32"}}]}' "row 'r4': field 'params.batch'"
try dup "{\"table\": \"t\", \"family\": \"ssu\", \"rows\": [{\"id\": \"d\", \"params\": {$ok}}, {\"id\": \"d\", \"params\": {$ok}}]}" "row 'd': field 'id': duplicate"
try index "{\"table\": \"t\", \"family\": \"ssu\", \"rows\": [{\"id\": \"r5\", \"params\": {$ok, \"pad_slots\": 3}}]}" "row 'r5': field 'pad_slots'"
# User text in messages is escaped and bounded: a 5 MB key, a row id holding a newline.
python3 -c '
import json
ok = {"batch": 2, "nheads": 4, "ngroups": 2, "pool_slots": 4, "state_dtype": "fp32", "k" * 5000000: 1}
json.dump({"table": "t", "family": "ssu", "rows": [{"id": "r\nx", "params": ok}]}, open("bigkey.json", "w"))'
"$KGATE" run --backend cpu --quiet --cases bigkey.json --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --out o_big.json 2>big.err >/dev/null
check "5 MB key exits 2" 2 $?
[ "$(wc -l <big.err)" -eq 1 ] && [ "$(wc -c <big.err)" -lt 300 ]; check "5 MB key: one line under 300 bytes" 0 $?
expect_grep "5 MB key: row id escaped" "row 'r\\\\nx'" big.err
expect_grep "5 MB key: truncated with its length" "(5000007 bytes)" big.err
[ ! -e o_big.json ] && [ ! -e o_big.json.journal ]; check "5 MB key: nothing half-written" 0 $?
"$KGATE" run --backend cpu --cases nowhere.json --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar 2>e.txt; check "missing table" 2 $?
expect_grep "names the missing file" "nowhere.json" e.txt
finish
