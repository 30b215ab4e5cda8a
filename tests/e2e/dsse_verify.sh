#!/usr/bin/env bash
# A signed receipt's seal.signature.dsse checked by an independent DSSE verifier, PyPI
# securesystemslib (pinned, in the venv scripts/setup.sh makes): the right key is accepted and
# the verified payload is the receipt's body; another key and a tampered payload are refused,
# by it and by kgate audit.
source "$(dirname "$0")/lib.sh"
PY="$SRC/build-pyverify/venv/bin/python"
VERIFY="$SRC/tests/e2e/dsse_verify.py"
if ! "$PY" -c "import securesystemslib.dsse, securesystemslib.signer, cryptography" 2>/dev/null; then
  echo "FAIL: no DSSE verifier venv at $SRC/build-pyverify/venv (securesystemslib + cryptography): run scripts/setup.sh"
  exit 1
fi
"$PY" -c "import importlib.metadata as m; print('verifier: securesystemslib', m.version('securesystemslib'), 'cryptography', m.version('cryptography'))"
cd "$WORK"
"$KGATE" keygen k >/dev/null; check "keygen" 0 $?
"$KGATE" keygen other >/dev/null; check "keygen (another key)" 0 $?
"$KGATE" run --backend cpu --quiet --cases "$SRC/cases/cpu/ssu.json" --rows 'ssu-cpu-h8g1-b1-bf16' \
  --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --groups 1 --blocks 2 --m 1 --sign k.key --out r.json >run.txt 2>&1
check "signed run" 0 $?
"$KGATE" audit r.json --pubkey k.pub >audit.txt 2>&1; check "kgate audit --pubkey k.pub" 0 $?
"$PY" "$VERIFY" verify r.json k.pub >v.txt 2>&1; rc=$?; cat v.txt; check "securesystemslib accepts the right key" 0 $rc
expect_grep "the verified payload is the body" "= the receipt's body" v.txt
"$PY" "$VERIFY" verify r.json other.pub >v.txt 2>&1; rc=$?; cat v.txt; check "securesystemslib rejects another key" 1 $rc
"$PY" "$VERIFY" verify r.json other.pub --keyid-from-envelope >v.txt 2>&1; rc=$?; cat v.txt
check "securesystemslib rejects another key under the signature's keyid" 1 $rc
"$KGATE" audit r.json --pubkey other.pub >audit.txt 2>&1; check "kgate audit rejects another key" 1 $?
"$PY" "$VERIFY" tamper r.json t.json; check "tamper the payload" 0 $?  # t.json names r.json's sidecar, beside it
"$PY" "$VERIFY" verify t.json k.pub >v.txt 2>&1; rc=$?; cat v.txt; check "securesystemslib rejects a tampered payload" 1 $rc
"$KGATE" audit t.json >audit.txt 2>&1; check "kgate audit rejects a tampered payload" 1 $?
expect_grep "audit names the payload" "DSSE payload is not this receipt's body" audit.txt
finish
