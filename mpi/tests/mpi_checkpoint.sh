#!/usr/bin/env bash
# A checkpoint is not trusted (issue 20, item 6): a record with a changed PnL digit, a trades count +1000,
# a record moved to another symbol, or a symbol recorded twice with results that disagree (checksums
# recomputed, so only the disagreement can tell) is refused on --resume, named on stderr, and its symbol
# recomputed: the rows equal an uninterrupted run's.  The checkpoint is then rewritten, so a second resume
# refuses nothing.  A checkpoint of another variant is refused whole.  A failed symbol whose path holds a
# newline is recorded escaped, and its resumed error row is byte-identical (item 9).
set -u
source "$(dirname "$0")/common.sh"
make_universe "$tmp/u" 6 || { echo "FAIL: making the universe"; exit 1; }
printf 'close\n1\nnan\n' > "$tmp/u/"$'evil\nFAKE 6 999999 1e9.csv'
grid=(--grid 6:60:4)
run() { timeout 120 "$mpirun" --oversubscribe -np "$@"; }
run 1 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv --variant unchecked --checkpoint "$tmp/full.ck" \
  > "$tmp/whole.csv" 2> "$tmp/whole.err"
rc=$?
check '[[ $rc -eq 1 && $(grep -c "^R " "$tmp/full.ck") -eq 10 ]]' "the full run records 10 symbols (exit $rc): $(grep hmasweep-mpi "$tmp/whole.err")"

# tamper NAME PYTHON: a copy of the full checkpoint changed by PYTHON (lines: list of its lines, without
# newlines; fnv(hash, body) recomputes a record checksum as mpi/checkpoint.c does), then --resume it.
tamper() {
  local name=$1 code=$2
  python3 - "$tmp/full.ck" "$tmp/$name.ck" <<PY
import re, struct, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").split("\n")[:-1]
run_hash = int(lines[0].split()[-1], 16) if lines[0].startswith("hmasweep-mpi checkpoint v5") else 0
def fnv(data, h=14695981039346656037):
    for b in data:
        h = ((h ^ b) * 1099511628211) & (2**64 - 1)
    return h
def sign(body):  # a record with a valid checksum (v3 to v5), or bare (v1)
    if not run_hash:
        return body
    return "%s #%016x" % (body, fnv(body.encode(), fnv(struct.pack("<Q", run_hash))))
def body(line):
    return re.sub(r" #[0-9a-f]{16}$", "", line)
ok = [i for i, l in enumerate(lines) if re.match(r"R \d+ 0 \d+ ", l)]
$code
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
  run 1 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv --variant unchecked --checkpoint "$tmp/$name.ck" \
    --resume > "$tmp/$name.csv" 2> "$tmp/$name.err"
  rc=$?
}
# a hex digit of a PnL: the first digit after "0x1." of the first good record
tamper digit 'i = ok[0]; l = lines[i]; j = re.search(r"0x1\.[0-9a-f]", l).end() - 1; lines[i] = l[:j] + ("0" if l[j] != "0" else "1") + l[j+1:]'
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/whole.csv" "$tmp/digit.csv"' "a flipped PnL digit: rows equal the uninterrupted run (exit $rc)"
check 'grep -q "digit.ck:[0-9]*: record of symbol #[0-9]* does not verify" "$tmp/digit.err" && grep -q "9 from the checkpoint, 1 computed" "$tmp/digit.err"' \
  "a flipped PnL digit is named and recomputed: $(grep -v '^symbol\|^summary' "$tmp/digit.err" | head -3)"
run 1 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv --variant unchecked --checkpoint "$tmp/digit.ck" \
  --resume > "$tmp/again.csv" 2> "$tmp/again.err"
check 'cmp -s "$tmp/whole.csv" "$tmp/again.csv" && grep -q "10 from the checkpoint, 0 computed" "$tmp/again.err" && ! grep -q refused "$tmp/again.err"' \
  "the checkpoint was rewritten: a second resume refuses nothing and computes nothing"
# trades + 1000
tamper trades 'i = ok[1]; lines[i] = re.sub(r":(\d+)", lambda m: ":%d" % (int(m.group(1)) + 1000), lines[i], count=1)'
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/whole.csv" "$tmp/trades.csv" && grep -q "does not verify" "$tmp/trades.err"' "trades + 1000: refused and recomputed (exit $rc)"
# v3: a statistic edited (wins + 1 of the first combo) does not verify either (v5: after the input's size, mtime, hash)
tamper wins 'i = ok[3]; lines[i] = re.sub(r"^(R \d+ 0 \d+ \d+ -?\d+ [0-9a-f]{16} [^: ]+:\d+:)(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1), lines[i])'
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/whole.csv" "$tmp/wins.csv" && grep -q "does not verify" "$tmp/wins.err"' "wins + 1: refused and recomputed (exit $rc)"
# a record moved to another symbol (its index changed)
tamper moved 'i = ok[2]; lines[i] = re.sub(r"^R (\d+)", lambda m: "R %d" % ((int(m.group(1)) + 1) % 10), lines[i])'
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/whole.csv" "$tmp/moved.csv" && grep -q "does not verify" "$tmp/moved.err"' "a record moved to another symbol: refused (exit $rc)"
# a duplicate that disagrees, with a valid checksum: both copies refused
tamper dup 'i = ok[0]; b = body(lines[i]); lines.append(sign(re.sub(r":(\d+)", lambda m: ":%d" % (int(m.group(1)) + 1), b, count=1)))'
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/whole.csv" "$tmp/dup.csv"' "a duplicate record that disagrees: rows equal the uninterrupted run (exit $rc)"
check 'grep -q "recorded again with a different result than line" "$tmp/dup.err" && grep -q "9 from the checkpoint, 1 computed" "$tmp/dup.err"' \
  "the disagreeing copies are named and the symbol recomputed: $(grep refused "$tmp/dup.err" | head -2)"
# an identical duplicate is harmless
tamper same 'lines.append(lines[ok[0]])'
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/whole.csv" "$tmp/same.csv" && grep -q "10 from the checkpoint, 0 computed" "$tmp/same.err"' "an identical duplicate is accepted"
# garbage lines and a NUL byte: refused by line, never a crash
tamper junk 'lines[1:1] = ["R 99999999999999999999 0 1 | #0000000000000000", "R", "R 1 0 5 0x1p+0:1 | x #zzzzzzzzzzzzzzzz", "\x00R 2"]'
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/whole.csv" "$tmp/junk.csv" && [[ $(grep -c "unreadable record\|NUL byte" "$tmp/junk.err") -eq 4 ]]' "unreadable lines are refused one by one (exit $rc)"
# the escaped error record of the file named with a newline round-trips
check 'grep -q "^R [0-9]* 1 0 .*evil\\\\nFAKE 6 999999 1e9.csv" "$tmp/full.ck" && [[ $(grep -c "^FAKE" "$tmp/full.ck") -eq 0 ]]' "the checkpoint escapes a newline in a path"
check 'grep -q "^\"evil\\\\nFAKE 6 999999 1e9\",,,,,,,,,,,,,,,,\".*evil\\\\nFAKE" "$tmp/same.csv"' "the resumed error row is the escaped one"
# another variant, another ISA: another run
run 1 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv --variant sliding --checkpoint "$tmp/full.ck" --resume \
  > /dev/null 2> "$tmp/variant.err"
rc=$?
check '[[ $rc -ne 0 ]] && grep -q "different run" "$tmp/variant.err"' "resume with another variant is refused (exit $rc): $(head -1 "$tmp/variant.err")"
run 1 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv --variant unchecked --fee 0.001 --checkpoint "$tmp/full.ck" \
  --resume > /dev/null 2> "$tmp/fee.err"
rc=$?
check '[[ $rc -ne 0 ]] && grep -q "different run" "$tmp/fee.err"' "resume with another fee is refused (exit $rc): $(head -1 "$tmp/fee.err")"
# issue 28 item 9: a 2-D grid of as many combos (2 x 2) is another run: the run hash covers the windows
run 1 "$mpi_cli" --inputs "$tmp/u" --hma-lengths 6,24 --hma3-lengths 6,24 --format csv --variant unchecked \
  --checkpoint "$tmp/full.ck" --resume > /dev/null 2> "$tmp/grid2.err"
rc=$?
check '[[ $rc -ne 0 ]] && grep -q "different run" "$tmp/grid2.err"' "resume with a 2-D grid is refused (exit $rc): $(head -1 "$tmp/grid2.err")"
# v3 and v4 (records without the input's identity, or without the periods' columns) are refused whole, by name
for old in 3 4; do
  sed "1s/^hmasweep-mpi checkpoint v5 /hmasweep-mpi checkpoint v$old /" "$tmp/full.ck" > "$tmp/v$old.ck"
  run 1 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv --variant unchecked --checkpoint "$tmp/v$old.ck" \
    --resume > /dev/null 2> "$tmp/v$old.err"
  rc=$?
  check '[[ $rc -ne 0 ]] && grep -q "checkpoint v'$old' (this hmasweep-mpi reads v5" "$tmp/v'$old'.err"' \
    "a v$old checkpoint is refused (exit $rc): $(head -1 "$tmp/v$old.err")"
done
# v5, periods (docs/spec.md §9): on 2 ranks the rows with E, mtm_max_drawdown and §9.4 equal run --inputs';
# the checkpoint carries E (a run resumed from it writes the same rows); an edited E value does not verify
# and is recomputed; another --periods is another run
pgrid=("${grid[@]}" --periods 3 --validate)
"$cli" run --inputs "$tmp/u" "${pgrid[@]}" --format csv --variant unchecked > "$tmp/plocal.csv" 2>/dev/null
run 2 "$mpi_cli" --inputs "$tmp/u" "${pgrid[@]}" --format csv --variant unchecked --checkpoint "$tmp/p.ck" \
  > "$tmp/pwhole.csv" 2> "$tmp/pwhole.err"
check 'cmp -s "$tmp/plocal.csv" "$tmp/pwhole.csv" && grep -q "equity_3" "$tmp/pwhole.csv"' "--periods 3 on 2 ranks: rows equal run --inputs --periods"
python3 - "$tmp/p.ck" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
i = next(i for i, l in enumerate(lines) if re.match(r"R \d+ 0 \d+ ", l))
m = list(re.finditer(r"0x1\.[0-9a-f]", lines[i]))[-1]  # a hex digit of the last combo's E[P-1]
j = m.end() - 1
lines[i] = lines[i][:j] + ("0" if lines[i][j] != "0" else "1") + lines[i][j + 1:]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
run 1 "$mpi_cli" --inputs "$tmp/u" "${pgrid[@]}" --format csv --variant unchecked --checkpoint "$tmp/p.ck" --resume \
  > "$tmp/presume.csv" 2> "$tmp/presume.err"
check 'cmp -s "$tmp/plocal.csv" "$tmp/presume.csv" && grep -q "does not verify" "$tmp/presume.err" && grep -q "9 from the checkpoint, 1 computed" "$tmp/presume.err"' \
  "an edited equity value in a v5 checkpoint is refused and recomputed: $(grep -v '^symbol\|^summary' "$tmp/presume.err" | head -2)"
run 1 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --periods 4 --format csv --variant unchecked --checkpoint "$tmp/p.ck" \
  --resume > /dev/null 2> "$tmp/pother.err"
rc=$?
check '[[ $rc -ne 0 ]] && grep -q "different run" "$tmp/pother.err"' "resume with another --periods is refused (exit $rc): $(head -1 "$tmp/pother.err")"
# issue 29 item 7: an input changed under the same path is not trusted.  Each record carries the file's size,
# mtime and the series' hash; on --resume a changed one (regenerated with another seed; same bytes, new mtime;
# other bytes of the same size under the recorded mtime) is named, its symbol recomputed, and the rows equal
# a fresh run over the files as they are now.
cp -a "$tmp/u" "$tmp/v"
rm -f "$tmp/v/"$'evil\nFAKE 6 999999 1e9.csv'
run 1 "$mpi_cli" --inputs "$tmp/v" "${grid[@]}" --format csv --variant unchecked --checkpoint "$tmp/inputs.ck" \
  > /dev/null 2>&1
changed() {  # NAME: resume inputs.ck (a copy) over the universe as it is now, and compare with a fresh run
  cp "$tmp/inputs.ck" "$tmp/$1.ck"
  run 1 "$mpi_cli" --inputs "$tmp/v" "${grid[@]}" --format csv --variant unchecked --checkpoint "$tmp/$1.ck" --resume \
    > "$tmp/$1.csv" 2> "$tmp/$1.err"
  rc=$?
  run 1 "$mpi_cli" --inputs "$tmp/v" "${grid[@]}" --format csv --variant unchecked > "$tmp/$1.fresh.csv" 2> /dev/null
}
"$cli" gen --output "$tmp/v/sym002.npy" --bars $((1500 + 397 * 2)) --seed 77   # regenerated: other prices
changed regen
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/regen.fresh.csv" "$tmp/regen.csv" && grep -q "sym002.npy changed since it was recorded" "$tmp/regen.err" && grep -q "8 from the checkpoint, 1 computed" "$tmp/regen.err"' \
  "a regenerated input is recomputed (exit $rc): $(grep 'changed since\|from the checkpoint' "$tmp/regen.err" | head -2)"
cp -a "$tmp/u/sym002.npy" "$tmp/v/sym002.npy"; touch "$tmp/v/sym002.npy"                  # same bytes, new mtime
changed touched
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/touched.fresh.csv" "$tmp/touched.csv" && grep -q "sym002.npy changed since it was recorded (mtime changed)" "$tmp/touched.err"' \
  "a touched input is recomputed: $(grep 'changed since' "$tmp/touched.err" | head -1)"
cp -a "$tmp/u/sym002.npy" "$tmp/v/sym002.npy"                                               # back as recorded
python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-1] ^= 1; open(p,'wb').write(b)" "$tmp/v/sym003.f64"
touch -r "$tmp/u/sym003.f64" "$tmp/v/sym003.f64"                                         # same size, recorded mtime
changed content
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/content.fresh.csv" "$tmp/content.csv" && grep -q "sym003.f64 changed since it was recorded (content changed" "$tmp/content.err" && grep -q "8 from the checkpoint, 1 computed" "$tmp/content.err"' \
  "an input edited under its recorded size and mtime is recomputed: $(grep 'changed since' "$tmp/content.err" | head -1)"

# a FIFO in the universe (a glob names it; a directory lists regular files only): an error row on 2 ranks
mkfifo "$tmp/u/zz_pipe.f64"
run 2 "$mpi_cli" --inputs "$tmp/u/*" "${grid[@]}" --format csv > "$tmp/fifo.csv" 2> "$tmp/fifo.err"
rc=$?
check '[[ $rc -eq 1 ]] && grep -q "^\"zz_pipe\",.*is a FIFO" "$tmp/fifo.csv"' "a FIFO in the universe on 2 ranks: error row, exit $rc (124 = hang)"
finish
