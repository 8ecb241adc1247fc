#!/usr/bin/env bash
# The build enforces the layers (issue 19 §1, issue 30 §1, README "Layout"); each check names what crossed a
# layer.  LAYER... is the order, lowest first: CMakeLists.txt's HS_LAYERS, the one list (src/ folders, then
# the front ends' cli/server, cli, mpi).
#   1. The front ends above the library (cli/server/, python/, mpi/) include no private header of the
#      registry or the ISAs, nor the CLI's option parser: they use include/ (hmasweep.h).
#   2. No folder includes from a folder above it: every quoted #include of a file directly in LAYER k is in
#      include/, in its own folder or in a layer before k.
#   3. The library includes nothing of study/, cli/ or tests/: no src/ file names a header that lives only
#      there, and no library object compiles with an include directory there (compile_commands.json).
#   4. Targets: the Python extension and the universe compile with no src/ include directory
#      (compile_commands.json), so a private include there would not compile.
#   5. libhmasweep.so holds no code of the server application (hmasweep_engine): neither `nm -D` nor `nm`
#      shows any symbol that libhmasweep_engine.a defines.
#   6. The library holds no experiment: neither `nm` of libhmasweep.a nor `nm -D`/`nm` of libhmasweep.so
#      shows a kernel of study/gap/instruments/instruments.def (hs_combo_x_*).
# Usage: test_layers.sh SOURCE_DIR BUILD_DIR NM LIBHMASWEEP_SO LIBHMASWEEP_ENGINE_A LIBHMASWEEP_A LAYER...
set -euo pipefail
# Run by hand without them, set -u stopped it at "$1: unbound variable", which names nothing to give.
if [[ $# -lt 7 ]]; then
  echo "usage: test_layers.sh SOURCE_DIR BUILD_DIR NM LIBHMASWEEP_SO LIBHMASWEEP_ENGINE_A LIBHMASWEEP_A LAYER..." \
       "(got $# arguments; ctest test_layers passes them: ctest --test-dir BUILD_DIR -R test_layers)" >&2
  exit 2
fi
src=$1 build=$2 nm=$3 so=$4 engine=$5 static=$6
shift 6
layers=("$@")
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$src"
quoted_includes() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | sort -u; }

# 1. private headers in the front ends
front=(); for d in cli/server python mpi; do [[ -d $d ]] && front+=("$d"); done
hits=$(grep -rlE '"(variant|isa|certify|options)\.h"' "${front[@]}" || true)
[[ -z $hits ]] || bad "private headers named in front ends: $(echo $hits)"

# 2. and 3. the include graph, against the layer order
layer_of() {  # the index of the first layer whose folder holds header $1, or -1
  local k
  for k in "${!layers[@]}"; do [[ -f ${layers[$k]}/$1 ]] && { echo "$k"; return; }; done
  echo -1
}
edges=0
for k in "${!layers[@]}"; do
  dir=${layers[$k]}
  [[ -d $dir ]] || { bad "layer $dir (HS_LAYERS) is not a folder of $src"; continue; }
  for f in "$dir"/*.[ch] "$dir"/*.def; do
    [[ -f $f ]] || continue
    while IFS= read -r h; do
      [[ -f include/$h || -f $dir/$h ]] && continue
      j=$(layer_of "$h")
      if ((j > k)); then
        bad "$f includes $h from ${layers[$j]}, a layer above $dir (order, lowest first: ${layers[*]})"
      elif ((j < 0)) && [[ $dir == src/* ]]; then
        where=$(find study cli tests -name "$(basename "$h")" 2>/dev/null | head -1)
        [[ -n $where ]] && bad "the library includes ${where%/*}/: $f includes $h"
      fi
      edges=$((edges + 1))
    done < <(quoted_includes "$f")
  done
done

db=$build/compile_commands.json
[[ -f $db ]] || bad "no $db (CMAKE_EXPORT_COMPILE_COMMANDS)"
command_of() {  # the compile lines of the units whose path ends in $1 (regex), one a line
  python3 -c 'import json,re,sys
for e in json.load(open(sys.argv[1])):
    if re.search(sys.argv[2], e["file"]):
        print(e["file"], e.get("command", " ".join(e.get("arguments", []))))' "$db" "$1"
}
lib_units=0 crossing=()
while IFS= read -r line; do
  lib_units=$((lib_units + 1))
  dirs=$(grep -oE -- "(-I|-isystem) *$src/(study|cli|tests)/[^ ]*" <<<"$line" | sort -u | tr '\n' ' ' || true)
  [[ -z $dirs ]] || crossing+=("${line%% *}: $dirs")
done < <([[ -f $db ]] && command_of "^$src/src/" || true)
((${#crossing[@]} == 0)) ||
  bad "${#crossing[@]} of $lib_units library units compile with an include directory of study/, cli/ or tests/," \
      "e.g. ${crossing[0]}"

# 4. the front ends' compile lines
checked=0
for unit in python/src/_core.c cli/inputs_options.c cli/universe.c cli/inputs.c mpi/hmasweep_mpi.c; do
  cmd=$([[ -f $db ]] && command_of "/$unit\$" || true)
  [[ -n $cmd ]] || continue  # not built here (no Python headers, no MPI)
  checked=$((checked + 1))
  if grep -qE -- "-I *$src/src\b|-isystem *$src/src\b" <<<"$cmd"; then
    bad "$unit compiles with a private include directory: $(grep -oE -- "-I *$src/src[^ ]*" <<<"$cmd" | head -3 | tr '\n' ' ')"
  fi
done

# 5. no server code in the library
app=$("$nm" --defined-only "$engine" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u)
[[ -n $app ]] || bad "no symbols read from $engine"
for flag in -D ""; do
  lib=$("$nm" $flag --defined-only "$so" | awk '{print $3}' | sort -u)
  both=$(comm -12 <(echo "$app") <(echo "$lib"))
  [[ -z $both ]] || bad "nm $flag $(basename "$so") has server code: $(echo $both | head -c 300)"
done

# 6. no experiment in the library
kernels=$(sed -n 's/^HS_VARIANT([^,]*, *\([a-z0-9_]*\),.*/\1/p' study/gap/instruments/instruments.def | sort -u)
[[ -n $kernels ]] || bad "no kernel read from study/gap/instruments/instruments.def"
pattern="hs_[a-z]+_($(echo $kernels | tr ' ' '|'))__"
for lib in "$nm --defined-only $static" "$nm -D --defined-only $so" "$nm --defined-only $so"; do
  found=$($lib 2>/dev/null | awk '{print $NF}' | grep -E "^$pattern" | sort -u || true)
  [[ -z $found ]] || bad "$lib: the library holds $(wc -l <<<"$found") symbols of the gap study's instruments:" \
                         "$(echo $found | head -c 200)"
done

[[ $fail == 0 ]] || exit 1
echo "OK: ${#layers[@]} layers (${layers[*]}): $edges includes across folders, none upward, none of study/ cli/ tests/ from src/;" \
     "$lib_units library units compile without study/ cli/ tests/; no private header in cli/server/ python/ mpi/;" \
     "$checked front-end units compile with include/ only; libhmasweep.so has none of the server's" \
     "$(wc -w <<<"$app") symbols (nm and nm -D); libhmasweep.a and .so have none of the $(wc -w <<<"$kernels")" \
     "instruments' kernels"
