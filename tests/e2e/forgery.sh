#!/usr/bin/env bash
# Tamper and reseal: every forgery kind of tests/e2e/forgery.py applied to a signed CPU receipt,
# resealed as a forger without the key would (every digest recomputed, unsigned), then audited.
# A kind a recorded fact exposes must be refused; a signature-only kind (harness/core/AUDIT.md)
# passes an audit without a key and must fail `audit --pubkey`, resealed unsigned or re-signed
# with the forger's key. Files that are not receipts exit 2. Prints a table by kind.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 is needed to forge receipts"; exit 77; }
cd "$WORK"
FORGE="python3 $SRC/tests/e2e/forgery.py"
"$KGATE" keygen k >/dev/null; check "keygen" 0 $?
# A policy with a speed gate: what a weakened policy drops.
"$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --cases "$SRC/cases/axpy.json" \
  --candidate axpy.cpu_eigen --baseline axpy.cpu_scalar --policy correct,strict --sign k.key \
  --out r.json >run.txt 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { echo "FAIL: run exited $rc"; cat run.txt; exit 1; }
"$KGATE" audit r.json --pubkey k.pub >a.txt; check "the signed receipt audits with its key" 0 $?
expect_grep "its signature is verified" "signature by key [0-9a-f]* verified" a.txt
"$KGATE" audit r.json >a.txt; check "the signed receipt audits without a key" 0 $?
expect_grep "without --pubkey the signature is not called valid" "signed by key [0-9a-f]*, not verified (no --pubkey)" a.txt

# A forger's own key: the receipt re-signed, unchanged otherwise.
$FORGE resign r.json resigned.json || exit 1
"$KGATE" audit resigned.json >a.txt; check "re-signed by another key: audits, not verified" 0 $?
expect_grep "re-signed: not called valid" "not verified (no --pubkey)" a.txt
"$KGATE" audit resigned.json --pubkey k.pub >a.txt; check "re-signed by another key fails --pubkey" 1 $?
expect_grep "re-signed: the key ids named" "signed by key [0-9a-f]*, not by --pubkey" a.txt
mkdir trust && cp k.pub trust/
"$KGATE" audit r.json --trust trust >/dev/null; check "--trust: signed by a trusted key" 0 $?
"$KGATE" audit resigned.json --trust trust >a.txt; check "--trust: signed by another key" 1 $?
expect_grep "--trust names the key" "which no key in --trust" a.txt

printf '%-34s %-9s %5s %6s %s\n' kind class tried caught "caught by" >table.txt
fact_tried=0 fact_caught=0 sig_tried=0 sig_caught=0
mapfile -t kinds < <($FORGE kinds)
[ "${#kinds[@]}" -gt 0 ] || { echo "FAIL: forgery.py lists no kinds"; exit 1; }
for line in "${kinds[@]}"; do
  kind=${line% *} cls=${line#* }
  mkdir -p "f/$kind"
  if ! $FORGE forge "$kind" r.json "f/$kind/r.json" 2>"f/$kind/err.txt"; then
    echo "FAIL: forging $kind"; cat "f/$kind/err.txt"; fails=$((fails + 1)); continue
  fi
  "$KGATE" audit "f/$kind/r.json" >"f/$kind/audit.txt" 2>&1; rc=$?
  case "$cls" in
  none)  # the reseal itself is exact: an unedited body resealed audits
    check "resealed without an edit: audits" 0 $rc ;;
  fact)
    fact_tried=$((fact_tried + 1)); by=audit
    if [ $rc = 1 ]; then fact_caught=$((fact_caught + 1)); else
      echo "FAIL: forgery $kind accepted by audit (exit $rc)"; cat "f/$kind/audit.txt"; fails=$((fails + 1)); by=-; fi
    printf '%-34s %-9s %5s %6s %s\n' "$kind" fact 1 $((rc == 1)) "$by" >>table.txt ;;
  signature)
    sig_tried=$((sig_tried + 1))
    check "$kind: consistent with every recorded fact, audit alone accepts it" 0 $rc
    "$KGATE" audit "f/$kind/r.json" --pubkey k.pub >/dev/null 2>&1; rc_unsigned=$?
    $FORGE resign "f/$kind/r.json" "f/$kind/s.json" && "$KGATE" audit "f/$kind/s.json" --pubkey k.pub >/dev/null 2>&1
    rc_resigned=$?
    caught=$((rc_unsigned == 1 && rc_resigned == 1))
    [ $caught = 1 ] && sig_caught=$((sig_caught + 1)) ||
      { echo "FAIL: $kind passes --pubkey ($rc_unsigned unsigned, $rc_resigned re-signed)"; fails=$((fails + 1)); }
    printf '%-34s %-9s %5s %6s %s\n' "$kind" signature 1 $caught "--pubkey only" >>table.txt ;;
  esac
done
cat table.txt
echo "forgeries a recorded fact exposes: tried $fact_tried, caught by audit $fact_caught"
echo "signature-only forgeries: tried $sig_tried, caught with --pubkey $sig_caught (audit alone: 0)"
[ "$fact_tried" -gt 0 ] && [ "$sig_tried" -gt 0 ] || { echo "FAIL: no forgery tried"; fails=$((fails + 1)); }

# Files that are not receipts: one line, exit 2, before any audit.
sidecar=$(python3 -c 'import json,sys; print(json.load(open("r.json"))["body"]["predicate"]["samples"]["path"])')
cp "$sidecar" lone.samples.json
python3 -c 'import json; print(json.dumps(json.load(open("r.json"))["body"]))' >statement.json
echo '{}' >empty.json
echo '[1, 2]' >array.json
for f in lone.samples.json statement.json empty.json array.json; do
  "$KGATE" audit r.json "$f" >a.txt 2>err.txt; check "not a receipt: $f exits 2" 2 $?
  expect_grep "$f: one line naming it" "$f: not a kgate receipt" err.txt
  [ "$(wc -l <err.txt)" = 1 ] || { echo "FAIL: $f: more than one line"; fails=$((fails + 1)); }
done
"$KGATE" audit r.json "$sidecar" >/dev/null; check "a sidecar its receipt names is audited through it" 0 $?
finish
