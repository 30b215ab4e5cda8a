#!/usr/bin/env bash
# First look on a GPU machine: identity, GPU unit tests, short calib and ssu runs. Logs under $OUT.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
OUT=${OUT:-out/device}
mkdir -p "$OUT"
export KGATE_SOURCE_DIR=$PWD
nvidia-smi -L
"$B/kgate" env | tee "$OUT/env.json"
"$B/kgate_gpu_tests" 2>&1 | tail -15
bash tests/gpu/calib_smoke.sh "$B/kgate" "$PWD" 2>&1 | tail -8
bash tests/gpu/ssu_smoke.sh "$B/kgate" "$PWD" 2>&1 | tail -5
"$B/kgate" run --quiet --cases cases/calib.json --candidate calib.spin --baseline calib.spin_twin --groups 1 --m 3 \
  --policy correct --out "$OUT/calib_smoke.json"
python3 - "$OUT/calib_smoke.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["body"]["predicate"]
print("timer", r["timer"], "clock", r["environment"]["gpus"][0]["sm_clock_mhz_at_start"])
for row in r["rows"]:
    p = row["pairs"][0]
    if p["candidate_stats"] is None: print(row["id"], row["disposition"], row["error"]); continue
    c = p["candidate_stats"]["median_us"]
    ev = (row.get("events_timer_us") or {}).get("calib.spin", {}).get("median")
    sf = (row.get("self_clock_us") or {}).get("calib.spin", {}).get("median")
    print(f'{row["id"]:24s} cupti {c:10.3f}  events {ev if ev is None else round(ev,3)}  self {sf if sf is None else round(sf,3)}'
          f'  cupti/self-1 {"" if not sf else round(c/sf-1,4)}  ratio {p["ratio"]:.4f}')
PY
"$B/kgate" run --quiet --cases cases/ssu.json --rows '*-b1,*-b8,*-b32,*-b256*' --candidate ssu.fast --baseline ssu.baseline,ssu.floor \
  --groups 1 --m 3 --policy correct --out "$OUT/ssu_smoke.json"
python3 - "$OUT/ssu_smoke.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["body"]["predicate"]
for row in r["rows"]:
    if row["disposition"] != "passed":
        print(row["id"], row["disposition"], row["error"], [ (c["arm"], c["passed"], c["worst"], c["note"]) for c in row["correctness"]]); continue
    b, f = row["pairs"]
    fast = b["candidate_stats"]["median_us"]
    # fast's bandwidth by the family's work model (work.bytes, recorded per row)
    print(f'{row["id"]:36s} fast {fast:9.2f} base {b["baseline_stats"]["median_us"]:9.2f} floor {f["baseline_stats"]["median_us"]:9.2f}'
          f'  fast/floor {fast/f["baseline_stats"]["median_us"]:.3f}  fast {row["work"]["bytes"]/fast/1e6:.2f} TB/s')
PY
