#!/usr/bin/env bash
# The build enforces the layers (issue 19 §1, README "Layout"); each check names what crossed a layer.
#   1. The front ends above the library (cli/server/, python/, mpi/) include no private header of
#      the registry or the ISAs, nor the CLI's option parser: they use include/ (hmasweep.h).
#   2. No include cycle between cli/ and mpi/: cli/ includes no header of mpi/.
#   3. Targets: the Python extension and the universe compile with no src/ include directory
#      (compile_commands.json), so a private include there would not compile.
#   4. libhmasweep.so holds no code of the server application (hmasweep_engine): neither `nm -D` nor `nm`
#      shows any symbol that libhmasweep_engine.a defines.
# Usage: test_layers.sh SOURCE_DIR BUILD_DIR NM LIBHMASWEEP_SO LIBHMASWEEP_ENGINE_A
set -euo pipefail
# Run by hand without them, set -u stopped it at "$1: unbound variable", which names nothing to give.
if [[ $# -ne 5 ]]; then
  echo "usage: test_layers.sh SOURCE_DIR BUILD_DIR NM LIBHMASWEEP_SO LIBHMASWEEP_ENGINE_A (got $# arguments;" \
       "ctest test_layers passes them: ctest --test-dir BUILD_DIR -R test_layers)" >&2
  exit 2
fi
src=$1 build=$2 nm=$3 so=$4 engine=$5
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$src"

hits=$(grep -rlE '"(variant|isa|certify|options)\.h"' cli/server python mpi || true)
[[ -z $hits ]] || bad "private headers named in front ends: $(echo $hits)"

mpi_headers=$(ls mpi/*.h | xargs -n1 basename)
for f in cli/*.[ch] cli/server/*.[ch]; do
  while IFS= read -r h; do
    grep -qxF "$(basename "$h")" <<<"$mpi_headers" && bad "$f includes mpi/'s $h (mpi -> cli only)"
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

db=$build/compile_commands.json
[[ -f $db ]] || bad "no $db (CMAKE_EXPORT_COMPILE_COMMANDS)"
checked=0
for unit in python/src/_core.c cli/inputs_options.c cli/universe.c cli/inputs.c mpi/hmasweep_mpi.c; do
  cmd=$(python3 -c 'import json,sys; print("\n".join(e.get("command", " ".join(e.get("arguments", [])))
        for e in json.load(open(sys.argv[1])) if e["file"].endswith("/" + sys.argv[2])))' "$db" "$unit")
  [[ -n $cmd ]] || continue  # not built here (no Python headers, no MPI)
  checked=$((checked + 1))
  if grep -qE -- "-I *$src/src\b|-isystem *$src/src\b" <<<"$cmd"; then
    bad "$unit compiles with a private include directory: $(grep -oE -- "-I *$src/src[^ ]*" <<<"$cmd" | head -3 | tr '\n' ' ')"
  fi
done

app=$("$nm" --defined-only "$engine" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u)
[[ -n $app ]] || bad "no symbols read from $engine"
for flag in -D ""; do
  lib=$("$nm" $flag --defined-only "$so" | awk '{print $3}' | sort -u)
  both=$(comm -12 <(echo "$app") <(echo "$lib"))
  [[ -z $both ]] || bad "nm $flag $(basename "$so") has server code: $(echo $both | head -c 300)"
done

[[ $fail == 0 ]] || exit 1
echo "OK: no private header in cli/server/ python/ mpi/; cli/ includes nothing of mpi/;" \
     "$checked front-end units compile with include/ only; libhmasweep.so has none of the server's" \
     "$(wc -w <<<"$app") symbols (nm and nm -D)"
