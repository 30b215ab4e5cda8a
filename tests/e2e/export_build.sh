#!/usr/bin/env bash
# kgate export: every bad request is exit 2 with one line before any build starts; with CUDA
# built in, it builds ssu.fast as an export library (its own build tree), loads it back, and
# the library, its manifest and `kgate list --export` agree; a second export into the same
# build tree carries the arms asked for, in that order.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
export_err() {  # export_err "what" PATTERN ARGS...: exit 2, one line, PATTERN in it
  local what="$1" pattern="$2"
  shift 2
  "$KGATE" export "$@" >out.txt 2>err.txt
  check "$what: exit 2" 2 $?
  expect_grep "$what: says why" "$pattern" err.txt
  [ "$(wc -l <err.txt)" -eq 1 ] && echo "ok: $what: one line" || { echo "FAIL: $what: not one line"; cat err.txt; fails=$((fails + 1)); }
  [ ! -e "$WORK/x.so.build" ] && echo "ok: $what: nothing built" || { echo "FAIL: $what: a build tree was made"; fails=$((fails + 1)); }
}
export_err "unknown family" "no family 'ssx'; did you mean 'ssu'" --family ssx --arms ssu.fast --out x.so
export_err "family without export sources" "family 'ag_gemm' has no export sources" --family ag_gemm --arms ag_gemm.x --out x.so
export_err "CPU arm" "'ssu.cpu_eigen' is a cpu arm" --family ssu --arms ssu.cpu_eigen --out x.so
export_err "another family's arm" "'ag_gemm.cpu_eigen' is a ag_gemm arm, not ssu" --family ssu --arms ag_gemm.cpu_eigen --out x.so
export_err "not a source tree" "is not a kgate source tree" --family ssu --arms ssu.fast --out x.so --source "$WORK"
export_err "no arms" "name at least one arm" --family ssu --arms , --out x.so

if ! "$KGATE" --version | grep -q "^CUDA: on"; then
  export_err "no GPU arms without CUDA" "built without CUDA" --family ssu --arms ssu.fast --out x.so
  echo "kgate built without CUDA: the build half is skipped"
  finish
fi
export_err "unknown arm" "no ssu arm 'ssu.fsat'; did you mean 'ssu.fast'" --family ssu --arms ssu.fsat --out x.so
export_err "no directory for --out" "no directory" --family ssu --arms ssu.fast --out "$WORK/none/x.so"
touch exists.so
export_err "existing --out" "exists (--force replaces it)" --family ssu --arms ssu.fast --out exists.so

"$KGATE" export --family ssu --arms ssu.fast --out fast.so --build-dir bt >out.txt 2>err.txt
check "export ssu.fast" 0 $?
expect_grep "progress: configuring" "configuring" err.txt
expect_grep "progress: building" "building kgate_export_ssu (arms ssu.fast)" err.txt
python3 - "$KGATE" <<'PY'
import hashlib, json, subprocess, sys
m = json.load(open("fast.so.json"))
assert m["schema"] == "kgate.export/1" and m["family"] == "ssu" and m["arms"] == ["ssu.fast"], m
sha = hashlib.sha256(open("fast.so", "rb").read()).hexdigest()
assert m["library"]["sha256"] == sha, (m["library"], sha)
syms = subprocess.run(["nm", "-D", "--defined-only", "fast.so"], capture_output=True, text=True, check=True).stdout
text = sorted(l.split()[-1] for l in syms.splitlines() if l.split()[1] == "T")
assert text == ["kgate_export_table"], text
listed = json.loads(subprocess.run([sys.argv[1], "list", "--json", "--export", "fast.so"], capture_output=True,
                                   text=True, check=True).stdout)
ex = [i for i in listed["implementations"] if i["name"].startswith("export:")]
assert [i["name"].rsplit(":", 1)[1] for i in ex] == ["ssu.fast"], ex
assert ex[0]["kernel_names"] == ["ssu_fast_kernel"] and ex[0]["library"]["sha256"] == sha, ex[0]
print("ok: manifest, library, exported symbols and list agree")
PY
check "manifest, library and list agree" 0 $?
"$KGATE" export --family ssu --arms ssu.baseline,ssu.fast --out two.so --build-dir bt >out.txt 2>err.txt
check "second export, same build tree" 0 $?
"$KGATE" list --json --export two.so | python3 -c '
import json, sys
ex = [i["name"].rsplit(":", 1)[1] for i in json.load(sys.stdin)["implementations"] if i["name"].startswith("export:")]
assert ex == ["ssu.baseline", "ssu.fast"], ex
print("ok: arms in the order asked")'
check "the second library carries both arms in order" 0 $?
finish
