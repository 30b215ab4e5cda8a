# Sourced by device call scripts (needs ROOT, O, FM set): A/B of two builds, .dev/b and .dev/n,
# against FlashMLA's export, in the order b n b n. ab_runs PREFIX ROWS: sparse_mla.fast on ROWS
# (globs) of cases/sparse_mla_94.json, policy correct; per run $O/PREFIX_<b|n>_<1|2>.json, .log and
# .txt (scripts/sparse_mla_table.py), and one line with the run's verdict.
ab_runs() {
  local prefix=$1 rows=$2 i v
  for i in 1 2; do for v in b n; do
    timeout 100 "$ROOT/.dev/$v/kgate" run --quiet --cases cases/sparse_mla_94.json --rows "$rows" --candidate sparse_mla.fast \
      --baseline "$FM" --policy correct --out "$O/${prefix}_${v}_$i.json" > "$O/${prefix}_${v}_$i.log" 2>&1
    echo "$v $i rc=$?: $(grep -E 'pass policy' "$O/${prefix}_${v}_$i.log" | cut -c1-250)"
    python3 scripts/sparse_mla_table.py "$O/${prefix}_${v}_$i.json" > "$O/${prefix}_${v}_$i.txt" 2>&1
  done; done
}
