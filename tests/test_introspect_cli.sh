#!/usr/bin/env bash
# `hmasweep variants` lists the default ISA that `hmasweep run` then uses, HMASWEEP_ISA included (it once
# showed avx512 while run used sse2).  For every multi-ISA variant, under each cap this CPU runs.
# Usage: test_introspect_cli.sh CLI...
set -euo pipefail
cli=("$@")
fails=0 checked=0
for cap in scalar sse2 avx2 neon; do
  listing=$(HMASWEEP_ISA=$cap "${cli[@]}" variants --format json 2>/dev/null) || continue # not runnable here
  for variant in simd_wma sliding_lanes unchecked; do
    listed=$(echo "$listing" | python3 -c "import json,sys; print(next(v['default_isa'] for v in json.load(sys.stdin) if v['name']=='$variant'))")
    ran=$(HMASWEEP_ISA=$cap "${cli[@]}" run --variant "$variant" --bars 2000 --lengths 6 | sed -n 's/.*(isa \([a-z0-9]*\),.*/\1/p')
    checked=$((checked + 1))
    if [[ $listed != "$ran" ]]; then
      echo "HMASWEEP_ISA=$cap $variant: variants says $listed, run used $ran"
      fails=$((fails + 1))
    fi
  done
done
((checked > 0)) || { echo "no ISA cap ran"; exit 1; }
if HMASWEEP_ISA=bogus "${cli[@]}" variants >/dev/null 2>&1; then echo "HMASWEEP_ISA=bogus: variants should fail as run does"; fails=$((fails + 1)); fi
echo "test_introspect_cli: $checked (cap, variant) pairs, $fails mismatches"
exit $((fails > 0))
