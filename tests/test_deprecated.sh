#!/usr/bin/env bash
# The deprecated 1.x calls warn (docs/library.md "One way to extend a call"): compiling tests/abi_deprecated.c,
# which calls each of them, warns "'hs_x' is deprecated" for exactly the functions the public headers mark
# HS_DEPRECATED (a mark that compiled away, or a deprecated call the test forgot, fails by name), and with
# HS_NO_DEPRECATION_WARNINGS defined it compiles cleanly under -Werror=deprecated-declarations.
# Usage: test_deprecated.sh CC SOURCE_DIR
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: test_deprecated.sh CC SOURCE_DIR" >&2; exit 2; }
cc=$1 src=$2
export LC_ALL=C # plain quotes in the compiler's messages
headers=("$src/include/hmasweep.h" "$src/include/hmasweep_client.h")
# One declaration per chunk between semicolons: the name of each whose parameter list is followed by HS_DEPRECATED.
marked=$(cat "${headers[@]}" | tr '\n' ' ' | tr ';' '\n' | grep -E '\) *HS_DEPRECATED\("' |
         grep -oE 'HS_API [^(]*[^a-zA-Z0-9_](hs_[a-zA-Z0-9_]+)\(' | sed -E 's/.*[^a-zA-Z0-9_](hs_[a-zA-Z0-9_]+)\($/\1/' | sort -u)
[[ -n $marked ]] || { echo "test_deprecated: no HS_DEPRECATED declaration found"; exit 1; }
flags=(-std=c11 -fsyntax-only -I"$src/include" -I"$src/tests" -DHS_CLI='"hmasweep"' "$src/tests/abi_deprecated.c")
out=$("$cc" "${flags[@]}" -Wdeprecated-declarations 2>&1 || true)
warned=$(grep -oE "'hs_[a-zA-Z0-9_]+' is deprecated" <<<"$out" | grep -oE 'hs_[a-zA-Z0-9_]+' | sort -u || true)
rc=0
silent=$(comm -23 <(echo "$marked") <(echo "$warned"))
unmarked=$(comm -13 <(echo "$marked") <(echo "$warned"))
if [[ -n $silent ]]; then echo "marked HS_DEPRECATED but no warning where abi_deprecated.c calls it:"; echo "$silent" | sed 's/^/  /'; rc=1; fi
if [[ -n $unmarked ]]; then echo "warned but not marked in the headers:"; echo "$unmarked" | sed 's/^/  /'; rc=1; fi
if ! quiet=$("$cc" "${flags[@]}" -DHS_NO_DEPRECATION_WARNINGS -Werror=deprecated-declarations 2>&1); then
  echo "HS_NO_DEPRECATION_WARNINGS did not silence them:"; echo "$quiet" | head -20; rc=1
fi
echo "test_deprecated: $(echo "$marked" | wc -l) deprecated calls marked, $(echo "$warned" | grep -c . || true) warned"
[[ $rc -ne 0 ]] || echo "test_deprecated: OK"
exit $rc
