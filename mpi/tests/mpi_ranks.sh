#!/usr/bin/env bash
# hmasweep-mpi at N = 1..4 ranks (oversubscribed on 2 cores) gives byte-identical rows to the
# single-process `hmasweep run --inputs`, whose rows tests/test_universe.sh checks against single runs.
set -u
source "$(dirname "$0")/common.sh"
make_universe "$tmp/u" 24 || { echo "FAIL: making the universe"; exit 1; }
grid=(--grid 6:80:10)
"$cli" run --inputs "$tmp/u" "${grid[@]}" --format csv > "$tmp/local.csv" 2>/dev/null
check '[[ $? -eq 1 ]]' "the local run reports the broken files (exit 1)"
for np in 1 2 3 4; do
  timeout 120 "$mpirun" --oversubscribe -np $np "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv \
    > "$tmp/mpi$np.csv" 2> "$tmp/mpi$np.err"
  rc=$?
  check '[[ $rc -eq 1 ]]' "np=$np: exit $rc, expected 1 (broken files): $(grep hmasweep "$tmp/mpi$np.err")"
  check 'cmp -s "$tmp/local.csv" "$tmp/mpi$np.csv"' "np=$np: rows differ from the single-process run"
  check 'grep -q "27 symbols on $np rank.*27 computed, 3 failed" "$tmp/mpi$np.err"' "np=$np: summary line"
done
check '[[ $(grep -c "^\"broken_" "$tmp/mpi2.csv") -eq 3 ]]' "the three broken files are error rows"
timeout 60 "$mpirun" --oversubscribe -np 2 "$mpi_cli" --inputs "$tmp/u" --grid 6:80 > /dev/null 2> "$tmp/bad.err"
check '[[ $? -eq 2 ]] && grep -q "LO:HI:COUNT" "$tmp/bad.err"' "a bad option is a usage error on every rank, no hang"
# issue 28 item 9: the 2-D grid on 2 ranks gives run --inputs' rows byte for byte (test_universe.sh checks
# those against run --input), and a bad grid or fee value the same message as `run`, on every rank, no hang.
g2=(--hma-lengths 6,9,20 --hma3-lengths 5:30:3)
"$cli" run --inputs "$tmp/u" "${g2[@]}" --format csv > "$tmp/local2.csv" 2>/dev/null
timeout 120 "$mpirun" --oversubscribe -np 2 "$mpi_cli" --inputs "$tmp/u" "${g2[@]}" --format csv \
  > "$tmp/mpi2d.csv" 2> "$tmp/mpi2d.err"
rc=$?
check '[[ $rc -eq 1 ]] && cmp -s "$tmp/local2.csv" "$tmp/mpi2d.csv" && [[ $(grep -c "^\"sym" "$tmp/mpi2d.csv") -eq 24*9 ]]' \
  "2-D grid, np=2: exit $rc, rows differ from run --inputs (or not 24 x 9)"
for b in "--hma-lengths 6,9" "--hma-lengths 1,9 --hma3-lengths 5" "--hma-lengths 6 --hma3-lengths 5 --lengths 9" "--fee 2"; do
  read -ra words <<<"$b"
  want=$("$cli" run --input "$tmp/u/sym001.csv" "${words[@]}" 2>&1 >/dev/null)
  timeout 60 "$mpirun" --oversubscribe -np 2 "$mpi_cli" --inputs "$tmp/u" "${words[@]}" > /dev/null 2> "$tmp/bad2.err"
  rc=$? got=$(grep "^hmasweep-mpi: " "$tmp/bad2.err")  # mpirun adds its own lines about the exit status
  check '[[ $rc -eq 2 && -n $want && ${got#hmasweep-mpi: } == "${want#hmasweep: }" ]]' "'$b': hmasweep-mpi says ($rc) '$got', run '$want'"
done
finish
