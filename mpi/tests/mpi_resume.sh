#!/usr/bin/env bash
# Kill and resume: a rank dies mid-run (HS_MPI_FAIL_AFTER), mpirun ends with an error (no hang), the
# checkpoint holds what finished, and --resume completes the run recomputing nothing recorded, with rows
# byte-identical to an uninterrupted run.  The killed run's --output keeps the rows it finished (in order).
set -u
source "$(dirname "$0")/common.sh"
make_universe "$tmp/u" 20 || { echo "FAIL: making the universe"; exit 1; }
grid=(--grid 6:60:8)
"$cli" run --inputs "$tmp/u" "${grid[@]}" --format csv > "$tmp/whole.csv" 2>/dev/null
for np in 1 3; do
  ck=$tmp/ck$np
  timeout 120 "$mpirun" --oversubscribe -np $np -x HS_MPI_FAIL_AFTER=5 "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" \
    --format csv --checkpoint "$ck" --output "$tmp/partial$np.csv" > /dev/null 2> "$tmp/killed$np.err"
  rc=$?
  check '[[ $rc -ne 0 && $rc -ne 124 ]]' "np=$np: a dead rank ends the job with an error, not a hang (exit $rc)"
  # issue 18: rows are written as symbols finish (in order), so the killed run kept some, a prefix of the whole
  check '[[ $(wc -l < "$tmp/partial$np.csv") -gt 1 ]] && head -c "$(stat -c %s "$tmp/partial$np.csv")" "$tmp/whole.csv" | cmp -s - "$tmp/partial$np.csv"' \
    "np=$np: the killed run kept its finished rows ($(wc -l < "$tmp/partial$np.csv") lines), a prefix of the whole run's"
  recorded=$(grep -c '^R ' "$ck")
  check '[[ $recorded -ge 5 && $recorded -lt 23 ]]' "np=$np: checkpoint holds the finished symbols ($recorded)"
  timeout 60 "$mpirun" --oversubscribe -np $np "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv \
    --checkpoint "$ck" > /dev/null 2> "$tmp/again.err"
  check '[[ $? -ne 0 ]] && grep -q "exists: pass --resume" "$tmp/again.err"' "np=$np: a fresh run refuses to overwrite"
  timeout 120 "$mpirun" --oversubscribe -np $np "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv \
    --checkpoint "$ck" --resume > "$tmp/resumed$np.csv" 2> "$tmp/resumed$np.err"
  check 'cmp -s "$tmp/whole.csv" "$tmp/resumed$np.csv"' "np=$np: resumed rows differ from an uninterrupted run"
  check 'grep -q "23 symbols on $np rank.*: $recorded from the checkpoint, $((23 - recorded)) computed" "$tmp/resumed$np.err"' \
    "np=$np: recomputed only what was not recorded: $(grep hmasweep-mpi "$tmp/resumed$np.err")"
done
# a checkpoint of another universe is refused
timeout 60 "$mpirun" --oversubscribe -np 1 "$mpi_cli" --inputs "$tmp/u" --grid 6:60:9 --checkpoint "$tmp/ck1" --resume \
  > /dev/null 2> "$tmp/other.err"
check '[[ $? -ne 0 ]] && grep -q "different run" "$tmp/other.err"' "resume refuses another grid's checkpoint"
finish
