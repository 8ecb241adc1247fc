#!/usr/bin/env bash
# Bad input through the CLI: every case exits with the documented code (2 usage, 1 bad data) and a
# message naming the problem, never a crash (a signal exit is >= 128).  Plus the happy paths' shapes.
set -u
cli=${1:?usage: test_cli.sh path/to/hmasweep}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect CODE NEEDLE -- ARGS...
expect() {
  local code=$1 needle=$2
  shift 3
  local out rc
  out=$("$cli" "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -eq $code && $out == *"$needle"* ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: hmasweep $* -> exit $rc, stderr: $out (expected exit $code and '$needle')"
  fi
}

ok() { # ok NEEDLE -- ARGS...: exit 0 and stdout contains NEEDLE
  local needle=$1
  shift 2
  local out
  if out=$("$cli" "$@" 2>&1) && [[ $out == *"$needle"* ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: hmasweep $* (expected success with '$needle'): $out"; fi
}

small=(--bars 3000)
expect 2 "unknown command" -- frobnicate
expect 2 "unknown option '--bogus'" -- run --bogus
expect 2 "unknown variant 'nope'" -- run "${small[@]}" --variant nope
expect 2 "unknown ISA 'mmx'" -- run "${small[@]}" --isa mmx
expect 2 "--grid '6:200'" -- run "${small[@]}" --grid 6:200
expect 2 "--grid 'a:b:c'" -- run "${small[@]}" --grid a:b:c
expect 2 "impossible" -- run "${small[@]}" --grid 1:10:5
expect 2 "impossible" -- run "${small[@]}" --grid 10:5:3
expect 2 "COUNT must be" -- run "${small[@]}" --grid 6:10:0
expect 2 "'x' is not an integer" -- run "${small[@]}" --lengths 6,x
expect 2 "'' is not an integer" -- run "${small[@]}" --lengths 6,,8
expect 2 "length 1 is out of range" -- run "${small[@]}" --lengths 1,6
expect 2 "w1 = 5000 does not fit" -- run "${small[@]}" --lengths 5000
# the 2-D grid (docs/spec.md §8)
expect 2 "--hma-lengths needs --hma3-lengths too" -- run "${small[@]}" --hma-lengths 6,8
expect 2 "--hma3-lengths needs --hma-lengths too" -- run "${small[@]}" --hma3-lengths 6,8
expect 2 "--hma-lengths is empty" -- run "${small[@]}" --hma-lengths= --hma3-lengths 6
expect 2 "--hma3-lengths: '' is not an integer" -- run "${small[@]}" --hma-lengths 6 --hma3-lengths 6,,8
expect 2 "--hma-lengths: 'x' is not an integer" -- run "${small[@]}" --hma-lengths x --hma3-lengths 6
expect 2 "--hma3-lengths: length 0 is out of range" -- run "${small[@]}" --hma-lengths 6 --hma3-lengths 0
expect 2 "--hma-lengths: length -4 is out of range" -- run "${small[@]}" --hma-lengths -4 --hma3-lengths 6
expect 2 "--hma3-lengths '6:x:3': LO, HI and COUNT" -- run "${small[@]}" --hma-lengths 6 --hma3-lengths 6:x:3
expect 2 "--hma-lengths: grid 1:9:3 is impossible" -- run "${small[@]}" --hma-lengths 1:9:3 --hma3-lengths 6
expect 2 "more than 1000000" -- run "${small[@]}" --hma-lengths 2:9999:5000 --hma3-lengths 2:9999:5000
expect 2 "replace --grid" -- run "${small[@]}" --hma-lengths 6 --hma3-lengths 6 --grid 6:10:2
expect 2 "HMA3 length L = 9999999999" -- run "${small[@]}" --hma-lengths 6 --hma3-lengths 9999999999
expect 2 "w5 = 3500 does not fit" -- run "${small[@]}" --hma-lengths 6 --hma3-lengths 7000
# issue 28 item 9: the universe takes the 2-D grid (tests/test_universe.sh) and refuses a bad one as run does
expect 2 "--hma-lengths: grid 1:9:3 is impossible" -- run --inputs "$tmp" --hma-lengths 1:9:3 --hma3-lengths 6
# docs/spec.md §9 (issue 27 §4): periods and validation, each bad value named
expect 2 "--periods '0'" -- run "${small[@]}" --periods 0
expect 2 "--periods 'x'" -- run "${small[@]}" --periods x
expect 2 "--periods 3001: periods = 3001" -- run "${small[@]}" --periods 3001
expect 2 "--groups 5: expected an even S" -- run "${small[@]}" --periods 16 --validate --groups 5
expect 2 "--groups 18 is more than --periods 16" -- run "${small[@]}" --periods 16 --validate --groups 18
expect 2 "--groups 22: expected an even S from 2 to 20" -- run "${small[@]}" --periods 30 --validate --groups 22
expect 2 "--groups 16 (the default) is more than --periods 8" -- run "${small[@]}" --periods 8 --validate
expect 2 "TRAIN '0' is not a length >= 1" -- run "${small[@]}" --periods 16 --validate --walk-forward 0:2
expect 2 "TEST '0' is not a length >= 1" -- run "${small[@]}" --periods 16 --validate --walk-forward 8:0
expect 2 "--walk-forward 17:1: TRAIN 17 is longer than --periods 16" -- run "${small[@]}" --periods 16 --validate --walk-forward 17:1
expect 2 "--walk-forward 3:20: TEST 20 is longer than --periods 16" -- run "${small[@]}" --periods 16 --validate --walk-forward 3:20
expect 2 "TRAIN + TEST = 17 is more than --periods 16" -- run "${small[@]}" --periods 16 --validate --walk-forward 10:7
expect 2 "'sideways' is neither anchored nor rolling" -- run "${small[@]}" --periods 16 --validate --walk-forward 8:2:sideways
expect 2 "--periods-per-year 'inf': expected a finite number" -- run "${small[@]}" --periods 16 --validate --periods-per-year inf
expect 2 "--periods-per-year 'nan': expected a finite number" -- run "${small[@]}" --periods 16 --validate --periods-per-year nan
expect 2 "--periods-per-year '0': expected a finite number > 0" -- run "${small[@]}" --periods 16 --validate --periods-per-year 0
# ... through the one strict number parser (hs_parse_i64/f64, issue 29 item 10): before, strtoll took ' 16' as 16
# and strtod took the hex float 0x10 as 16 periods a year
expect 2 "--periods ' 16'" -- run "${small[@]}" --periods " 16"
expect 2 "--periods-per-year '0x10'" -- run "${small[@]}" --periods 16 --validate --periods-per-year 0x10
expect 2 "--validate needs --periods P" -- run "${small[@]}" --validate
expect 2 "--groups is an option of --validate" -- run "${small[@]}" --periods 16 --groups 4
expect 2 "--periods-per-year is an option of --validate" -- run "${small[@]}" --periods 16 --periods-per-year 252
expect 2 "--bars needs" -- run --bars 0
expect 2 "--bars needs" -- run --bars 12abc
expect 2 "--seed needs" -- run --seed -3
expect 2 "--vol needs" -- run --vol nan
expect 2 "--start needs" -- run --start -1
expect 2 "--threads '0': expected an integer between 1 and 1024" -- run "${small[@]}" --threads 0
# issue 30 §1: one thread limit, the library's (HS_THREADS_MAX = 1024), in every front end's one parser; the
# CLI allowed 4096 and then the library refused with a message that named the C macro.
expect 2 "--threads '2000': expected an integer between 1 and 1024" -- run "${small[@]}" --threads 2000
expect 2 "--threads '2000': expected an integer between 1 and 1024" -- run --inputs /nonexistent --threads 2000
expect 2 "--format 'xml'" -- run "${small[@]}" --format xml
expect 2 "--variant needs" -- run --variant
expect 2 "--output FILE is required" -- gen --bars 10
expect 2 "--format 'parquet'" -- gen --bars 10 --output "$tmp/x" --format parquet

# HMASWEEP_ISA caps the ISA (validated like --isa)
out=$(HMASWEEP_ISA=bogus "$cli" run "${small[@]}" 2>&1 >/dev/null); rc=$?
if [[ $rc -eq 2 && $out == *"unknown ISA 'bogus'"* ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: HMASWEEP_ISA=bogus -> $rc $out"; fi
# a misspelt HMASWEEP_OMP_SCHEDULE is refused by name (it once meant lpt silently)
out=$(HMASWEEP_OMP_SCHEDULE=lptx "$cli" run "${small[@]}" --variant simd_wma_omp 2>&1 >/dev/null); rc=$?
if [[ $rc -eq 2 && $out == *"HMASWEEP_OMP_SCHEDULE='lptx'"* ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: HMASWEEP_OMP_SCHEDULE=lptx -> $rc $out"; fi
out=$(HMASWEEP_ISA=scalar "$cli" run "${small[@]}" --lengths 6 --variant simd_wma --format json)
if [[ $out == *'"isa": "scalar"'* ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: HMASWEEP_ISA=scalar not honoured"; fi
# an ISA this CPU cannot run, and one it runs but the scalar-only port is not built for
if "$cli" variants | grep -q neon; then foreign=avx2 native=neon; else foreign=neon native=avx2; fi  # the CLI's arch, not the host's (qemu)
expect 2 "this CPU cannot run it" -- run "${small[@]}" --variant simd_wma --isa "$foreign"
expect 2 "is not built for ISA $native" -- run "${small[@]}" --variant naive --isa "$native"

# bad data files: exit 1, the file named
: >"$tmp/empty.f64"
expect 1 "empty" -- run --input "$tmp/empty.f64"
printf 'abc' >"$tmp/trunc.f64"
expect 1 "truncated" -- run --input "$tmp/trunc.f64"
printf 'close\n100\n101\nabc\n' >"$tmp/text.csv"
expect 1 "line 4" -- run --input "$tmp/text.csv" --lengths 2
printf 'close\n100\nnan\n101\n' >"$tmp/nan.csv"
expect 1 "NaN" -- run --input "$tmp/nan.csv" --lengths 2
printf 'close\n100\n-5\n101\n' >"$tmp/neg.csv"
expect 1 "not positive" -- run --input "$tmp/neg.csv" --lengths 2
printf 'close\n100\n0\n101\n' >"$tmp/zero.csv"
expect 1 "not positive" -- run --input "$tmp/zero.csv" --lengths 2
expect 1 "$tmp/missing.f64" -- run --input "$tmp/missing.f64"

# happy paths: gen in every format, read back, same results as the synthetic run
for fmt in f64 csv npy; do
  ok "" -- gen --bars 2000 --seed 9 --output "$tmp/s.$fmt"
done
want=$("$cli" run --bars 2000 --seed 9 --lengths 6,9,20 --format csv)
for fmt in f64 csv npy; do
  got=$("$cli" run --input "$tmp/s.$fmt" --lengths 6,9,20 --format csv)
  if [[ "$got" == "$want" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --input $fmt differs"; fi
done
# --output - is stdout (issue 10: it used to create a file named "-"): byte for byte what a file of that
# format gets, raw f64 readable by `run --input -`, nothing created in the working directory, and a
# write error reported.
for fmt in f64 csv npy; do
  if (cd "$tmp" && "$cli" gen --bars 2000 --seed 9 --output - --format $fmt >"$tmp/stdout.$fmt") &&
     cmp -s "$tmp/stdout.$fmt" "$tmp/s.$fmt" && [[ ! -e "$tmp/-" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: gen --output - --format $fmt differs from the file or created '-'"; fi
done
got=$("$cli" gen --bars 2000 --seed 9 --output - | "$cli" run --input - --lengths 6,9,20 --format csv 2>&1)
if [[ "$got" == "$want" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: gen --output - | run --input -: $got"; fi
got=$("$cli" gen --bars 3 --seed 9 --output - --format csv)
if [[ $(printf '%s\n' "$got" | head -1) == close && $(printf '%s\n' "$got" | wc -l) -eq 4 ]]; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: gen --output - --format csv wrote: $got"; fi
if [[ -w /dev/full ]]; then
  out=$("$cli" gen --bars 10 --output - --format csv 2>&1 >/dev/full); rc=$?
  if [[ $rc -eq 1 && $out == *"error writing stdout"* ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: gen --output - >/dev/full -> $rc $out"; fi
fi
ok '"combos": [' -- run --bars 2000 --lengths 6,9 --format json
# 2-D: HMA length outer, both lengths on every row; (8, 20) has the windows worked by hand in test_api.c;
# the diagonal rows are the 1-D run's rows; the range form is the grid's linspace (6:10:3 = 6, 8, 10)
grid2=$("$cli" run --bars 2000 --hma-lengths 6,8 --hma3-lengths 6:10:3 --format csv)
row() { printf '%s\n' "$grid2" | sed -n "$1p"; }
one=$("$cli" run --bars 2000 --lengths 6,8 --format csv)
if [[ $(row 1) == combo,hma_length,hma3_length,w0,w1,w2,w3,w4,w5,trades,pnl,wins,gross_profit,gross_loss,sum_sq,max_drawdown,bars_held &&
      $(row 2) == 0,6,6,3,6,2,1,2,3,* &&
      $(row 3) == 1,6,8,3,6,2,1,2,4,* && $(row 7) == 5,8,10,4,8,2,2,2,5,* &&
      $(row 2 | cut -d, -f4-) == $(printf '%s\n' "$one" | sed -n 2p | cut -d, -f3-) &&
      $(row 6 | cut -d, -f4-) == $(printf '%s\n' "$one" | sed -n 3p | cut -d, -f3-) ]]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: the 2-D grid's csv: $grid2 (1-D: $one)"; fi
if [[ $("$cli" run --bars 2000 --hma-lengths 8 --hma3-lengths 20 --format csv | sed -n 2p) == 0,8,20,4,8,2,3,5,10,* ]]; then
  pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --hma-lengths 8 --hma3-lengths 20 windows"; fi
ok '"hma_length": 8, "hma3_length": 20, "windows": [4, 8, 2, 3, 5, 10]' -- run --bars 2000 --hma-lengths 8 --hma3-lengths 20 --format json
ok '"length": 9, "hma_length": 9, "hma3_length": 9' -- run --bars 2000 --lengths 6,9 --format json
ok "fingerprint: combo 0 (Lh=8, L3=20)" -- run --bars 2000 --hma-lengths 8 --hma3-lengths 20
ok "fingerprint: combo 0 (L=6)" -- run --bars 2000 --lengths 6,9
ok "unchecked" -- variants
# --fee (docs/spec.md §8): a bad fee is a usage error naming it; every format carries the six statistics
expect 2 "--fee '1'" -- run "${small[@]}" --lengths 6 --fee 1
expect 2 "--fee '-0.1'" -- run "${small[@]}" --lengths 6 --fee -0.1
expect 2 "'nan' is not a number" -- run "${small[@]}" --lengths 6 --fee nan
expect 2 "'inf' is not a number" -- run "${small[@]}" --lengths 6 --fee inf
expect 2 "--fee needs a number" -- run "${small[@]}" --lengths 6 --fee abc
expect 2 "--fee needs a number" -- run "${small[@]}" --lengths 6 --fee
# issue 29 item 10: one strict parser (hs_parse_f64/i64) for every number: an underflow, a space on either
# side, a negative zero and a hex float are refused (before: 1e-400 ran as fee 0, ' 0.001', -0 and 0x1p-10 ran)
expect 2 "'1e-400' is too small: it would read as 0" -- run "${small[@]}" --lengths 6 --fee 1e-400
expect 2 "' 0.001' is not a number" -- run "${small[@]}" --lengths 6 --fee " 0.001"
expect 2 "'0.001 ' is not a number" -- run "${small[@]}" --lengths 6 --fee "0.001 "
expect 2 "'-0' is a negative zero" -- run "${small[@]}" --lengths 6 --fee -0
expect 2 "'0x1p-10' is not a number" -- run "${small[@]}" --lengths 6 --fee 0x1p-10
expect 2 "--bars" -- run --bars " 500" --lengths 6
expect 2 "--vol" -- gen --output - --bars 10 --vol 0x1p-3
ok "combo,length,w0,w1,w2,w3,w4,w5,trades,pnl,wins,gross_profit,gross_loss,sum_sq,max_drawdown,bars_held" -- \
  run "${small[@]}" --lengths 6,9 --format csv --fee 0
ok '"max_drawdown": ' -- run "${small[@]}" --lengths 6,9 --format json --fee 0.001
ok '"fee": 0.001,' -- run "${small[@]}" --lengths 6,9 --format json --fee 0.001
ok "win%      pf    dd_closed" -- run "${small[@]}" --lengths 6,9
ok "dd_closed       dd_mtm  sharpe/period" -- run "${small[@]}" --lengths 6,9 --periods 4 --validate --groups 2
ok "fee 0.0025" -- run "${small[@]}" --lengths 6,9 --fee 0.0025
ok "usage: hmasweep run" -- run --help
ok "(default 42, 150000, 0.0008, 100)" -- run --help  # HS_DEFAULT_* through the help text
ok "(default 6:200:80)" -- run --help
ok "(json/csv in full, %.17g;" -- run --help  # a printf field with no argument printed garbage here
ok "usage: hmasweep gen" -- gen --help
ok "usage: hmasweep variants" -- variants --help

echo "test_cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
