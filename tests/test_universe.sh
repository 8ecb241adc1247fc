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

# same_as_single_runs ROWS.csv FIELDS COMBOS TAG GRID...: each of alpha, beta, gamma has COMBOS rows in ROWS.csv
# whose csv FIELDS (the lengths, windows, trades, pnl and the six statistics of docs/spec.md §8) are byte
# for byte its single-series run's (`run --input FILE GRID... --format csv`, the independent source).
same_as_single_runs() {
  local rows=$1 fields=$2 combos=$3 tag=$4 sym f
  shift 4
  for sym in alpha beta gamma; do
    f=$(ls "$u/$sym".*)
    "$cli" run --input "$f" "$@" --format csv | tail -n +2 | cut -d, -f"$fields" > "$tmp/alone$tag.$sym"
    grep "^\"$sym\"," "$rows" | cut -d, -f"$fields" > "$tmp/many$tag.$sym"
    check 'cmp -s "$tmp/alone$tag.$sym" "$tmp/many$tag.$sym" && [[ $(wc -l < "$tmp/many$tag.$sym") -eq $combos ]]' \
      "$sym: universe rows ($*) differ from the single-series run"
  done
}
grid=(--grid 6:120:12)
"$cli" run --inputs "$u" "${grid[@]}" --format csv > "$tmp/rows.csv" 2> "$tmp/summary.txt"
rc=$?
check '[[ $rc -eq 1 ]]' "a universe with broken files exits 1 (got $rc)"
same_as_single_runs "$tmp/rows.csv" 2-16 12 "" "${grid[@]}"
check 'grep -q "^\"nan\",,,,,,,,,,,,,,,,\".*close\[1\] is NaN" "$tmp/rows.csv"' "NaN file: error row naming close[1]"
# --fee (docs/spec.md §8): every row, statistics included, is the single run's with that fee; a bad fee exits 2
"$cli" run --inputs "$u" "${grid[@]}" --fee 0.003 --format csv > "$tmp/fee.csv" 2>/dev/null
"$cli" run --input "$u/beta.csv" "${grid[@]}" --fee 0.003 --format csv | tail -n +2 | cut -d, -f2-16 > "$tmp/alone.fee"
check 'grep "^\"beta\"," "$tmp/fee.csv" | cut -d, -f2-16 | cmp -s - "$tmp/alone.fee" && ! cmp -s "$tmp/alone.fee" "$tmp/alone.beta"' \
  "--fee 0.003: universe rows differ from the single-series run with that fee"
out=$("$cli" run --inputs "$u" "${grid[@]}" --fee 1.5 2>&1 >/dev/null); rc=$?
check '[[ $rc -eq 2 && $out == *"fee = 1.5"* ]]' "--fee 1.5 for a universe: exit 2 naming it (got $rc: $out)"
out=$("$cli" run --inputs "$u" "${grid[@]}" --fee abc 2>&1 >/dev/null); rc=$?
check '[[ $rc -eq 2 && $out == *"--fee needs a number"* ]]' "--fee abc for a universe: exit 2 (got $rc: $out)"
# --periods/--validate/--periods-per-year (docs/spec.md §9): each combo's mtm_max_drawdown, §9.4 figures and
# equity are the single-series run's (run --input --periods ...) byte for byte, and an error row has as many
# fields as the header; a series shorter than P is that symbol's error naming P; --validate alone exits 2
pargs=(--periods 5 --validate --periods-per-year 12)
"$cli" run --inputs "$u" "${grid[@]}" "${pargs[@]}" --format csv > "$tmp/periods.csv" 2>/dev/null
"$cli" run --input "$u/gamma.npy" "${grid[@]}" "${pargs[@]}" --groups 4 --format csv | tail -n +2 | cut -d, -f2- > "$tmp/alone.periods"
check 'grep "^\"gamma\"," "$tmp/periods.csv" | cut -d, -f2- | sed "s/,\$//" | cmp -s - "$tmp/alone.periods"' \
  "--periods 5 --validate: universe rows differ from the single-series run"
check 'python3 -c "import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(not (r[0][16:24]==\"mtm_max_drawdown period_sharpe sortino skew kurtosis annualised_sharpe annual_return calmar\".split() and r[0][24:29]==[\"equity_%d\" % k for k in range(1,6)] and all(len(x)==len(r[0]) for x in r)))" "$tmp/periods.csv"' \
  "--periods csv: the header names the §9 columns and every row, error rows included, has its fields"
"$cli" gen --output "$tmp/four.f64" --bars 4 --seed 1
printf '%s\n' "$tmp/four.f64" > "$tmp/four.txt"
out=$("$cli" run --inputs "$tmp/four.txt" --lengths 2 --periods 5 --format csv 2>/dev/null)
check '[[ $out == *"periods = 5: it must be between 1 and the number of bars, 4"* ]]' "a series of 4 bars with --periods 5: its error row names P ($out)"
out=$("$cli" run --inputs "$u" "${grid[@]}" --validate 2>&1 >/dev/null); rc=$?
check '[[ $rc -eq 2 && $out == *"--validate needs --periods P"* ]]' "--validate without --periods for a universe: exit 2 (got $rc: $out)"
out=$("$cli" run --inputs "$u" "${grid[@]}" --periods 0 2>&1 >/dev/null); rc=$?
check '[[ $rc -eq 2 && $out == *"--periods '"'"'0'"'"'"* ]]' "--periods 0 for a universe: exit 2 naming it (got $rc: $out)"
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


# ---- issue 20, item 9: a file name cannot forge a row (one escaping rule for every format) -------------
x=$tmp/inject
mkdir -p "$x"
evil=$'EVIL\nFAKE 6 999999 1e9'
"$cli" gen --output "$x/$evil.csv" --bars 800 --seed 6
"$cli" gen --output "$x/"$'ansi\e[31mred.f64' --bars 800 --seed 7
"$cli" gen --output "$x/"$'bad\xffutf8.f64' --bars 800 --seed 8
"$cli" gen --output "$x/ok.f64" --bars 800 --seed 9
printf 'close\nnan\n' > "$x/"$'broken\nFAKE ERROR.csv'
igrid=(--lengths 6,9)
for fmt in table csv jsonl; do
  "$cli" run --inputs "$x" "${igrid[@]}" --format $fmt > "$tmp/inject.$fmt" 2> "$tmp/inject.$fmt.err"
done
check '! grep -qa "^FAKE" "$tmp/inject.table" "$tmp/inject.csv" "$tmp/inject.table.err"' "a newline in a file name forged a row"
check '[[ $(grep -c "^EVIL\\\\nFAKE 6 999999 1e9 " "$tmp/inject.table") -eq 3 ]]' "table: the symbol shown escaped (2 rows + summary)"
check '! grep -qaP "[\x00-\x08\x0b-\x1f\x7f]" "$tmp/inject.table" "$tmp/inject.csv" "$tmp/inject.jsonl"' "a control byte reached the output"
lines_ok=$(python3 - "$tmp/inject.csv" "$tmp/inject.jsonl" <<'PY'
import csv, json, sys
rows = [next(csv.reader([l])) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]]
objs = [json.loads(l) for l in open(sys.argv[2], "rb").read().decode("utf-8").split("\n")[:-1]]
syms = {r[0] for r in rows[1:]}
want = {"EVIL\\nFAKE 6 999999 1e9", "ansi\\x1b[31mred", "bad\\xffutf8", "ok", "broken\\nFAKE ERROR"}
print(all(len(r) == 17 for r in rows) and syms == want and {o["symbol"] for o in objs} == want and len(objs) == 9)
PY
)
check '[[ $lines_ok == True ]]' "csv/jsonl: one record per physical line, valid UTF-8, symbols escaped the same way ($lines_ok)"

# ---- item 10: a FIFO never blocks a run; two files with one symbol are an error naming both -------------
f=$tmp/fifo
mkdir -p "$f"
"$cli" gen --output "$f/good.f64" --bars 800 --seed 3
mkfifo "$f/pipe.f64"
timeout 30 "$cli" run --inputs "$f/*.f64" "${igrid[@]}" --format csv > "$tmp/fifo.csv" 2>/dev/null; rc=$?
check '[[ $rc -eq 1 ]] && grep -q "^\"pipe\",.*is a FIFO, not a regular file" "$tmp/fifo.csv"' "a FIFO in a glob: error row, no hang (exit $rc)"
printf 'G good.f64\nP pipe.f64\n' > "$f/list.txt"
timeout 30 "$cli" run --inputs "$f/list.txt" "${igrid[@]}" --format csv > "$tmp/fifo2.csv" 2>/dev/null; rc=$?
check '[[ $rc -eq 1 ]] && grep -q "^\"P\",.*is a FIFO" "$tmp/fifo2.csv" && grep -q "^\"G\",6," "$tmp/fifo2.csv"' "a FIFO in a manifest: error row, no hang (exit $rc)"
mkfifo "$f/manifest.fifo"
timeout 30 "$cli" run --inputs "$f/manifest.fifo" > /dev/null 2> "$tmp/err"; rc=$?
check '[[ $rc -eq 2 ]] && grep -q "not a regular file" "$tmp/err"' "a FIFO as the manifest is refused, no hang (exit $rc)"
d=$tmp/dup
mkdir -p "$d"
"$cli" gen --output "$d/DUP.f64" --bars 800 --seed 1
"$cli" gen --output "$d/DUP.csv" --bars 800 --seed 2
"$cli" run --inputs "$d" "${igrid[@]}" > "$tmp/dup.out" 2> "$tmp/err"; rc=$?
check '[[ $rc -eq 2 ]] && grep -q "DUP.csv and .*DUP.f64" "$tmp/err" && [[ ! -s $tmp/dup.out ]]' "duplicate symbols: error naming both files (exit $rc: $(cat "$tmp/err"))"
printf 'A DUP.f64\nB DUP.csv\n' > "$d/m.txt"
"$cli" run --inputs "$d/m.txt" "${igrid[@]}" --format csv > "$tmp/dup.csv" 2>/dev/null; rc=$?
check '[[ $rc -eq 0 && $(grep -c "^\"[AB]\",6," "$tmp/dup.csv") -eq 2 ]]' "a manifest qualifies them (exit $rc)"

# ---- item 12: a price file given to --inputs ------------------------------------------------------------
for p in "$u/beta.csv" "$u/gamma.npy" "$u/alpha.f64"; do
  "$cli" run --inputs "$p" > /dev/null 2> "$tmp/err"; rc=$?
  check '[[ $rc -eq 2 && $(wc -l < "$tmp/err") -eq 1 ]] && grep -q "did you mean --input $p" "$tmp/err"' \
    "$(basename "$p") as --inputs: one line, did you mean --input (exit $rc, $(wc -l < "$tmp/err") lines)"
done

# ---- item 12: gen --output over an existing file keeps its mode (and owner, as root) ---------------------
m=$tmp/mode.f64
(umask 022; "$cli" gen --output "$m" --bars 100 --seed 1)
for mode in 600 640 444; do
  chmod $mode "$m"
  (umask 022; "$cli" gen --output "$m" --bars 120 --seed 2) 2> "$tmp/err"; rc=$?
  if [[ $mode == 444 && $(id -u) -ne 0 ]]; then
    check '[[ $rc -ne 0 ]] && grep -q "Permission denied" "$tmp/err"' "gen over a read-only file is refused"
  else
    check '[[ $rc -eq 0 && $(stat -c %a "$m") == $mode && $(stat -c %s "$m") -eq 960 ]]' "gen over a $mode file: mode $(stat -c %a "$m")"
  fi
done
if [[ $(id -u) -eq 0 ]]; then
  chmod 600 "$m"; chown 65534:65534 "$m"
  "$cli" gen --output "$m" --bars 100 --seed 3
  check '[[ $(stat -c %u:%g:%a "$m") == 65534:65534:600 ]]' "gen as root keeps the owner: $(stat -c %u:%g:%a "$m")"
fi

# ---- item 11: a manifest costs about its bytes, not 4.5 KB a line ----------------------------------------
# Peak RSS of 1,000 and of 60,000 listed lines (missing files: error rows) in one run: the growth per line.
per_line=$(python3 - "$cli" "$tmp" <<'PY'
import resource, subprocess, sys
cli, tmp = sys.argv[1], sys.argv[2]
def peak(lines):
    path = f"{tmp}/big{lines}.txt"
    with open(path, "w") as f:
        f.writelines(f"S{i:07d} missing/{i:07d}.f64\n" for i in range(lines))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run([cli, "run", "--inputs", path, "--lengths", "6", "--format", "csv"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert p.returncode == 1, p.returncode
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, the largest child so far
small, big = peak(1000), peak(60000)
print(int((big - small) * 1024 / 59000))
PY
)
check '[[ -n $per_line && $per_line -lt 1200 ]]' "manifest: ${per_line} bytes of peak RSS per listed line (was ~4,600)"

# ---- issue 28 item 9: the 2-D grid, from the one parser every front end calls ----------------------------
# Each symbol's rows (hma_length, hma3_length, windows, trades, pnl, the statistics) are the single-series
# run's with the same --hma-lengths/--hma3-lengths, byte for byte: 3 x 3 combos, HMA length outer.
g2=(--hma-lengths 6,9,20 --hma3-lengths 5:30:3)
"$cli" run --inputs "$u" "${g2[@]}" --format csv > "$tmp/g2.csv" 2> "$tmp/g2.summary"
rc=$?
check '[[ $rc -eq 1 ]] && head -1 "$tmp/g2.csv" | grep -q "^symbol,hma_length,hma3_length,w0,"' "2-D grid csv: exit 1 (broken files), header names both lengths (got $rc)"
same_as_single_runs "$tmp/g2.csv" 2-17 9 2 "${g2[@]}"  # hma_length and hma3_length in place of length
check 'python3 -c "import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(not all(len(x)==len(r[0]) for x in r))" "$tmp/g2.csv"' \
  "2-D grid csv: every row, error rows included, has the header's fields"
check 'grep -q "^\"nan\",,,,,,,,,,,,,,,,,\".*close\[1\] is NaN" "$tmp/g2.csv"' "2-D grid: the NaN file's error row has one more empty field"
check 'grep -q "best_Lh best_L3" <(tr -s " " < "$tmp/g2.summary") && grep -Eq "^beta +5000 +ok +20 +30 " "$tmp/g2.summary"' \
  "2-D grid summary: the best combo's two lengths ($(grep beta "$tmp/g2.summary"))"
"$cli" run --inputs "$u/gam*.npy" "${g2[@]}" --format jsonl 2>/dev/null | head -2 > "$tmp/g2.jsonl"
check 'grep -q "^{\"symbol\": \"gamma\", \"hma_length\": 6, \"hma3_length\": 17, \"windows\": \[3, 6, 2, 3, 4, 8\]" <(sed -n 2p "$tmp/g2.jsonl")' \
  "2-D grid jsonl: hma_length and hma3_length per row ($(sed -n 2p "$tmp/g2.jsonl" | head -c 120))"
"$cli" run --inputs "$u/gam*.npy" "${g2[@]}" 2>/dev/null > "$tmp/g2.table"
check 'grep -Eq "^symbol +Lh +L3 +trades +pnl" "$tmp/g2.table" && grep -Eq "^gamma +20 +30 " "$tmp/g2.table"' "2-D grid table: columns Lh and L3"
# Bad grid and fee values: the same message and exit status from `run --input` and `run --inputs`.
bad_grids=("--hma-lengths 6,9" "--hma3-lengths 5" "--hma-lengths 1,9 --hma3-lengths 5" "--hma-lengths 6 --hma3-lengths 6:5:3"
           "--hma-lengths 6 --hma3-lengths= " "--hma-lengths 6 --hma3-lengths 5 --grid 6:50:4" "--lengths 6 --grid 6:50:4"
           "--hma-lengths 2:100000:2000 --hma3-lengths 2:100000:1000" "--grid 6:5:3" "--lengths 1" "--fee 1.5" "--fee abc"
           "--grid" "--hma3-lengths" "--fee")
for b in "${bad_grids[@]}"; do
  read -ra words <<<"$b"
  [[ $b == *"= " ]] && words=(--hma-lengths 6 --hma3-lengths=)
  one=$("$cli" run --input "$u/alpha.f64" "${words[@]}" 2>&1 >/dev/null); rc1=$?
  many=$("$cli" run --inputs "$u" "${words[@]}" 2>&1 >/dev/null); rc2=$?
  check '[[ $rc1 -eq 2 && $rc2 -eq 2 && -n $one && $one == "$many" ]]' "'$b': run --input says ($rc1) '$one', run --inputs ($rc2) '$many'"
done

# ---- issue 18: --progress --------------------------------------------------------------------------------
"$cli" run --inputs "$u/*.npy" "${igrid[@]}" --progress > /dev/null 2> "$tmp/progress.err"
check 'grep -q "1/1 symbols (100.0%).*symbols/s.*ETA" "$tmp/progress.err"' "--progress: k/N, rate, ETA on stderr"
"$cli" run --inputs "$u/*.npy" "${igrid[@]}" > /dev/null 2> "$tmp/progress.err"
check '! grep -q "symbols/s" "$tmp/progress.err"' "no progress when stderr is not a terminal"

echo "test_universe: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
