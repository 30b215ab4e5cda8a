#!/usr/bin/env bash
# Paths and files that would make kgate hang, write where it should not, or fail late: each is
# refused before any work with exit 2 (audit reads: 1), and nothing is written outside --out.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
cp "$SRC/cases/cpu/ssu.json" t.json
bare=(run --backend cpu --quiet --no-peaks --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --rows 'ssu-cpu-h8g1*'
      --blocks 2 --m 1 --warmup-calls 1)
run=("${bare[@]}" --cases t.json --groups 1 --warmup-us 0)
"$KGATE" keygen k >/dev/null; check "keygen" 0 $?
"$KGATE" "${run[@]}" --out r.json --sign k.key >/dev/null 2>&1; check "a signed receipt to read" 0 $?
sidecar=$(python3 -c 'import json; print(json.load(open("r.json"))["body"]["predicate"]["samples"]["path"])')
refused() {  # refused "what" rc pattern cmd...: the exit code, one line, and the pattern in it
  local what=$1 rc=$2 pat=$3
  shift 3
  timeout 20 "$KGATE" "$@" >/dev/null 2>err.txt
  check "$what" "$rc" $?
  [ "$(wc -l <err.txt)" -eq 1 ]; check "$what: one line" 0 $?
  expect_grep "$what: says why" "$pat" err.txt
}
audit_fails() {  # audit_fails "what" pattern args...: audit exits 1 at once, naming the problem
  local what=$1 pat=$2
  shift 2
  timeout 20 "$KGATE" audit "$@" >err.txt 2>&1
  check "$what" 1 $?
  expect_grep "$what: says why" "$pat" err.txt
}

# Readers: a FIFO, /dev/zero and a symlink loop are refused at once (timeout 20: no hang).
mkfifo fifo; ln -s loop2 loop1; ln -s loop1 loop2
fast=(--groups 1 --warmup-us 0 --out o/a.json)
refused "a FIFO as --cases" 2 "not a regular file" "${bare[@]}" "${fast[@]}" --cases fifo
refused "a FIFO as --sign" 2 "not a regular file" "${run[@]}" --out o/a.json --sign fifo
refused "a symlink loop as --cases" 2 "loop1" "${bare[@]}" "${fast[@]}" --cases loop1
refused "a FIFO as --policy" 2 "unknown gate 'fifo'" "${run[@]}" --out o/a.json --policy fifo  # not a file: a gate list
refused "a FIFO as --pubkey" 2 "not a regular file" audit r.json --pubkey fifo
audit_fails "/dev/zero as a receipt" "not a regular file" /dev/zero
audit_fails "a symlink loop as a receipt" "loop1" loop1
cp r.json r2.json
mv "$sidecar" keep.samples.json && mkfifo "$sidecar"
audit_fails "a FIFO as the sidecar" "not a regular file" r.json
rm "$sidecar" && mv keep.samples.json "$sidecar"
[ ! -e o ]; check "refused runs wrote nothing" 0 $?

# Outputs.
refused "--out naming a folder" 2 "names a directory" "${run[@]}" --out newdir/
[ ! -e newdir ]; check "--out DIR/: nothing made" 0 $?
refused "--out under /proc" 2 "not writable" "${run[@]}" --out /proc/r.json
refused "--out-dir ''" 2 "--out-dir: empty path" "${run[@]}" --out-dir ''
echo '{"cpu": [{"cases": "t.json", "candidate": "ssu.cpu_eigen", "baseline": "ssu.cpu_scalar", "out": "../x.json"}]}' \
  >up.json
refused "a suite entry's out above --out-dir" 2 "field 'out'" run --backend cpu --suite up.json --out-dir o
echo '{"cpu": [{"cases": "t.json", "candidate": "ssu.cpu_eigen", "baseline": "ssu.cpu_scalar", "out": "/tmp/x.json"}]}' \
  >abs.json
refused "a suite entry's absolute out" 2 "field 'out'" run --backend cpu --suite abs.json --out-dir o
[ ! -e x.json ] && [ ! -e o ]; check "suite outs: nothing written" 0 $?
before=$(sha256sum r.json "$sidecar")
refused "report --out onto its receipt" 2 "an input of this command" report r.json --out r.json
refused "report --out onto its sidecar" 2 "an input of this command" report r.json --format csv --out "$sidecar"
refused "carryover --out onto its receipt" 2 "an input of this command" carryover r.json --out ./r.json
refused "compare --out onto the new receipt" 2 "an input of this command" compare r.json r2.json --out r2.json
[ "$(sha256sum r.json "$sidecar")" = "$before" ]; check "receipt and sidecar unchanged" 0 $?
refused "gate --against-tree on a missing folder" 2 "not a folder" gate r.json --against-tree no/such/dir

# Journals: an empty one (killed while it was created) blocks nothing; one from another machine
# is refused; a FIFO is refused before any work.
: >r3.json.journal
"$KGATE" "${run[@]}" --out r3.json >/dev/null 2>&1; check "an empty journal: a fresh run goes ahead" 0 $?
: >r4.json.journal
"$KGATE" "${run[@]}" --out r4.json --resume >/dev/null 2>&1; check "an empty journal: --resume starts over" 0 $?
[ ! -e r3.json.journal ] && [ ! -e r4.json.journal ]; check "both journals gone with their runs" 0 $?
slow=("${bare[@]}" --cases t.json --groups 2 --warmup-us 300000)  # a second of work after the journal's header
"$KGATE" "${slow[@]}" --out r5.json >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do grep -q '"kind":"header"' r5.json.journal 2>/dev/null && break; sleep 0.05; done
kill -9 "$pid"; wait "$pid" 2>/dev/null
python3 - <<'PY'
import json
lines = open("r5.json.journal").read().split("\n")
h = json.loads(lines[0])
h["machine"]["host"] = "another-host"
lines[0] = json.dumps(h, separators=(",", ":"))
open("r5.json.journal", "w").write("\n".join(lines))
PY
# The machine is known once the backend is open: the plan's line comes first, then the refusal.
timeout 20 "$KGATE" "${slow[@]}" --out r5.json --resume >/dev/null 2>err.txt
check "--resume of another machine's journal" 2 $?
expect_grep "--resume of another machine's journal: says why" "ran on host 'another-host'.*this machine is host" err.txt
rm -f r5.json.journal && mkfifo r5.json.journal
refused "a FIFO as the journal" 2 "not a regular file" "${run[@]}" --out r5.json --resume
finish
