#!/usr/bin/env bash
# The html report of a CPU-backend receipt, rendered by headless Chromium: the DOM holds every row
# of the receipt (id="row-<id>"), and in a screenshot every chart's plot area holds drawn marks
# (saturated pixels: bars and lines; the axes, grid, whiskers and text are grey). The charts' places
# come from the page itself (#charts data-top / data-chart-height / data-chart-width, each chart's
# data-plot), the charts shown at the window's width.
# Skips (exit 77) only when no chromium is installed (scripts/setup.sh installs it).
source "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium is not installed (scripts/setup.sh installs it); the html report was not rendered"
  exit 77
fi
cd "$WORK"
"$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --cases "$SRC/cases/cpu/ssu.json" \
  --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --out r.json >/dev/null 2>&1
check "run ssu" 0 $?
"$KGATE" report r.json --format html --out r.html; check "report html" 0 $?
# The time chart's axis is the table's declared sweep parameter (cases/cpu/ssu.json: batch), a line
# per arm and group; a table that declares none (cases/cpu/ag_gemm.json) gets marks per row, no line.
expect_grep "time chart against the declared sweep" "median time per arm vs batch<" r.html
"$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --cases "$SRC/cases/cpu/ag_gemm.json" \
  --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out g.json >/dev/null 2>&1
check "run ag_gemm (no sweep declared)" 0 $?
"$KGATE" report g.json --format html --out g.html; check "report html (no sweep)" 0 $?
expect_grep "no sweep: time per row" "median time per arm vs row<" g.html
! grep -q '<g class="series"><path' g.html; check "no sweep: no line joins rows of unlike shapes" 0 $?
grep -q '<g class="series"><path' r.html; check "sweep: lines along it" 0 $?
# The samples behind the medians, per arm (from the sidecar): a box per row with each group's median.
expect_grep "the candidate's samples" "ssu.cpu_eigen (candidate): every timed sample per row" r.html
expect_grep "the baseline's samples" "ssu.cpu_scalar: every timed sample per row" r.html
rows=$(python3 -c "import json; print(len(json.load(open('r.json'))['body']['predicate']['rows']))")
[ "$(grep -o '<g class="dist"' r.html | wc -l)" -eq $((2 * rows)) ]; check "a box per row and arm" 0 $?
[ "$(grep -o '<path class="group"' r.html | wc -l)" -eq $((2 * 2 * rows)) ]; check "a median tick per group" 0 $?
[ "$fails" -eq 0 ] || finish

# Chromium is slow to start on a loaded machine: a generous timeout, a fresh profile per call,
# and one retry when a call times out or writes nothing.
chrome() {  # chrome OUTPUT_CHECK_FILE ARGS...
  local out="$1" attempt
  shift
  for attempt in 1 2; do
    rm -rf profile
    timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
      --hide-scrollbars --force-device-scale-factor=1 --user-data-dir="$WORK/profile" "$@" 2>>chrome.log
    [ -s "$out" ] && return 0
    echo "chromium attempt $attempt wrote nothing; retrying" >&2
  done
  tail -20 chrome.log >&2
  return 1
}
# page_height DOM: the height that shows every chart of a page 1000 px wide, from its own layout.
page_height() {
  python3 - "$1" <<'PY'
import re, sys
d = open(sys.argv[1]).read()
m = re.search(r'id="charts" data-top="(\d+)" data-chart-height="(\d+)" data-chart-width="(\d+)"', d)
print(int(int(m[1]) + d.count('class="chart"') * int(m[2]) * 1000 / int(m[3])) + 40)
PY
}
chrome dom.html --dump-dom "file://$WORK/r.html" >dom.html; check "chromium dumps the DOM" 0 $?
[ "$fails" -eq 0 ] || finish
height=$(page_height dom.html)
check "the page names its chart layout" 0 $?
chrome shot.png --window-size=1000,"$height" --screenshot="$WORK/shot.png" "file://$WORK/r.html" >/dev/null
check "chromium takes a screenshot" 0 $?

cat > check.py <<'EOF'
import html, json, re, struct, sys, zlib

receipt, dom_path, png_path = sys.argv[1:4]
src = sys.argv[4] if len(sys.argv) > 4 else None
predicate = json.load(open(receipt))["body"]["predicate"]
rows = [r["id"] for r in predicate["rows"]]
dom = open(dom_path, encoding="utf-8").read()
fails = 0

def report(ok, what):
    global fails
    print(("ok: " if ok else "FAIL: ") + what)
    fails += not ok

missing = [r for r in rows if 'id="row-%s"' % html.escape(r, quote=True) not in dom]
report(rows and not missing, "the DOM holds every row id (%d rows)%s" % (len(rows), "; missing: %s" % missing if missing else ""))

def png_rgb(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG: (width, height, rows of (r, g, b) bytes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, "unsupported PNG format"
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, prev, out = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line[i] for i in range(stride) if i % bpp < 3))
        prev = line
    return width, height, out

width, height, pixels = png_rgb(png_path)
top, chart_h, chart_w = map(int, re.search(r'id="charts" data-top="(\d+)" data-chart-height="(\d+)" data-chart-width="(\d+)"', dom).groups())
scale = width / chart_w  # the charts are shown at the page's width (the window: 1000 px)
charts = re.findall(r'<svg class="chart" id="chart-(\d+)"[^>]*data-plot="(\d+),(\d+),(\d+),(\d+)"', dom)
report(len(charts) >= 2, "the page has its charts (%d: ratio per baseline, time vs size)" % len(charts))
for index, x0, y0, x1, y1 in charts:
    x0, x1 = int(int(x0) * scale) + 1, int(int(x1) * scale) - 1
    y0 = int(top + (int(index) * chart_h + int(y0)) * scale) + 1
    y1 = int(top + (int(index) * chart_h + int(y1)) * scale) - 1
    if y1 >= height or x1 >= width:
        report(False, "chart %s lies outside the %dx%d screenshot" % (index, width, height))
        continue
    marks = 0
    for y in range(y0, y1, 2):  # every other pixel each way: a mark is wider than 2 px
        row = pixels[y]
        for x in range(x0, x1, 2):
            r, g, b = row[3 * x:3 * x + 3]
            marks += max(r, g, b) - min(r, g, b) > 40  # every data colour is; greys are 0
    report(marks >= 12, "chart %s: %d drawn pixels in its plot area (%d..%d x %d..%d)" % (index, marks, x0, x1, y0, y1))
# The time chart's x axis is the table's declared sweep parameter, else the rows (no line through
# unlike shapes); the table is the one the receipt names, read from the source tree.
if src:
    table = json.load(open(src + "/" + predicate["cases"]["path"]))
    sweep = table.get("sweep")
    want = "median time per arm vs " + (sweep if sweep else "row") + "<"
    report(want in dom, "time chart against %s (the table %s declares %s)" % (sweep or "the rows", predicate["cases"]["path"], sweep or "no sweep"))
    if sweep:
        params = table.get("defaults", {}).get(sweep), [r.get("params", {}).get(sweep) for r in table["rows"]]
        report(any(v is not None for v in params[1]) or params[0] is not None, "the sweep parameter %s is a parameter of its rows" % sweep)
header_ink = sum(1 for y in range(0, top) for x in range(0, width, 2) if max(pixels[y][3 * x:3 * x + 3]) < 100)
report(header_ink > 100, "the header above the charts has text (%d dark pixels)" % header_ink)
sys.exit(1 if fails else 0)
EOF
python3 check.py r.json dom.html shot.png
check "DOM rows and drawn charts" 0 $?

# Every committed receipt's html, as kgate report prints it now, rendered the same way, its time
# chart's axis checked against the sweep its table declares.
mapfile -t committed < <(cd "$SRC" && find receipts -mindepth 3 -maxdepth 3 -name '*.json' ! -name '*.samples.json' \
  ! -name '*.sanitize.json' ! -name '*.accept.json' | sort)
for r in "${committed[@]}"; do
  n=$(basename "${r%.json}")
  "$KGATE" report "$SRC/$r" --format html --out "$n.html"; check "report html: $r" 0 $?
  chrome "$n.dom" --dump-dom "file://$WORK/$n.html" >"$n.dom"; check "chromium renders $r" 0 $?
  chrome "$n.png" --window-size=1000,"$(page_height "$n.dom")" --screenshot="$WORK/$n.png" "file://$WORK/$n.html" >/dev/null
  check "chromium screenshots $r" 0 $?
  python3 check.py "$SRC/$r" "$n.dom" "$n.png" "$SRC"; check "$r: rows, drawn charts, the sweep axis" 0 $?
done
echo "${#committed[@]} committed receipts rendered"
finish
