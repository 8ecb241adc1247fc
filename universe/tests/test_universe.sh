#!/usr/bin/env bash
# `hmasweep run --inputs`: a universe of mixed files (f64, CSV, npy) with broken ones.  The independent
# source for every row is the CLI's single-series run (`run --input FILE --format csv`) of the same file.
set -u
cli=${1:?usage: test_universe.sh path/to/hmasweep}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }

u=$tmp/u
mkdir -p "$u/sub"
"$cli" gen --output "$u/alpha.f64" --bars 3000 --seed 1
"$cli" gen --output "$u/beta.csv" --bars 5000 --seed 2
"$cli" gen --output "$u/gamma.npy" --bars 4000 --seed 3
"$cli" gen --output "$u/sub/delta.npy" --bars 2500 --seed 4
printf 'close\n1.5\nnan\n2\n' > "$u/nan.csv"
: > "$u/empty.f64"
"$cli" gen --output "$u/short.f64" --bars 100 --seed 5
printf 'not a number\n' > "$u/junk.csv"

grid=(--grid 6:120:12)
"$cli" run --inputs "$u" "${grid[@]}" --format csv > "$tmp/rows.csv" 2> "$tmp/summary.txt"
rc=$?
check '[[ $rc -eq 1 ]]' "a universe with broken files exits 1 (got $rc)"
for sym in alpha beta gamma; do
  f=$(ls "$u/$sym".*)
  "$cli" run --input "$f" "${grid[@]}" --format csv | tail -n +2 | cut -d, -f2- > "$tmp/alone.$sym"
  grep "^\"$sym\"," "$tmp/rows.csv" | cut -d, -f2-10 > "$tmp/many.$sym"
  check 'cmp -s "$tmp/alone.$sym" "$tmp/many.$sym" && [[ $(wc -l < "$tmp/many.$sym") -eq 12 ]]' \
    "$sym: universe rows differ from the single-series run"
done
check 'grep -q "^\"nan\",,,,,,,,,,\".*close\[1\] is NaN" "$tmp/rows.csv"' "NaN file: error row naming close[1]"
check 'grep -q "^\"empty\",.*empty" "$tmp/rows.csv"' "empty file: error row"
check 'grep -q "^\"short\",.*does not fit a series of 100 bars" "$tmp/rows.csv"' "short series: error row"
check 'grep -q "^\"junk\"," "$tmp/rows.csv"' "junk CSV: error row"
check 'grep -q "7 symbols, 4 failed" "$tmp/summary.txt"' "summary on stderr: $(head -1 "$tmp/summary.txt")"
check '! grep -q delta "$tmp/rows.csv"' "a directory lists its own files, not subdirectories"

# a manifest: symbols, comments, relative paths, a missing file
cat > "$u/sub/universe.txt" <<M
# symbol path
DELTA delta.npy
EURUSD ../alpha.f64
../gamma.npy
GONE missing.f64
M
"$cli" run --inputs "$u/sub/universe.txt" "${grid[@]}" --format jsonl > "$tmp/rows.jsonl" 2>/dev/null
rc=$?
check '[[ $rc -eq 1 ]]' "manifest with a missing file exits 1"
check 'python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$tmp/rows.jsonl"' "jsonl: every line is JSON"
check '[[ $(grep -c "\"symbol\": \"EURUSD\", \"length\"" "$tmp/rows.jsonl") -eq 12 ]]' "manifest symbol names used"
check 'grep -q "\"symbol\": \"GONE\", \"error\": .*missing.f64" "$tmp/rows.jsonl"' "missing file: error row naming it"
same=$(python3 - "$tmp/rows.jsonl" "$tmp/alone.alpha" <<'PY'
import json, sys
eur = [json.loads(l) for l in open(sys.argv[1]) if '"EURUSD"' in l]
alone = [l.strip().split(",") for l in open(sys.argv[2])]
print(all(r["trades"] == int(a[7]) and r["pnl"] == float(a[8]) for r, a in zip(eur, alone)) and len(eur) == len(alone))
PY
)
check '[[ $same == True ]]' "EURUSD (alpha.f64 via the manifest) equals alpha alone"

# a glob of good files only: exit 0, table with summary
"$cli" run --inputs "$u/*.npy" "${grid[@]}" > "$tmp/table.txt" 2>&1
rc=$?
check '[[ $rc -eq 0 ]] && grep -q "1 symbols, 0 failed" "$tmp/table.txt"' "glob of good files: exit 0 ($rc)"

# bad requests: exit 2 with the reason
"$cli" run --inputs "$u" --format xml > /dev/null 2> "$tmp/err"; rc=$?
check '[[ $rc -eq 2 ]] && grep -q "jsonl" "$tmp/err"' "bad format is a usage error"
"$cli" run --inputs "$u/nothing*" > /dev/null 2> "$tmp/err"; rc=$?
check '[[ $rc -eq 1 ]] && grep -q "no file matches" "$tmp/err"' "empty glob named"
"$cli" run --inputs "$u" --variant nope > /dev/null 2> "$tmp/err"; rc=$?
check '[[ $rc -eq 2 ]] && grep -q "nope" "$tmp/err"' "unknown variant is a usage error ($rc)"

echo "test_universe: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
