#!/usr/bin/env bash
# libhmasweep.so exports exactly the public API: the set of defined dynamic symbols (`nm -D`) equals the
# set of functions the public headers (include/hmasweep.h, include/hmasweep_client.h) declare with HS_API.  An internal function that leaks (hs_fail,
# a kernel) or a public one that is hidden both fail, by name.  It prints how many are deprecated (HS_DEPRECATED).
# Usage: test_exports.sh NM LIBRARY HEADER...
set -euo pipefail
nm=$1 lib=$2
shift 2
exported=$("$nm" -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sed 's/@.*//' | sort -u)
declared=$(grep -oE '^HS_API [^(]*[^a-zA-Z0-9_](hs_[a-zA-Z0-9_]+)\(' -h "$@" | sed -E 's/.*[^a-zA-Z0-9_](hs_[a-zA-Z0-9_]+)\($/\1/' | sort -u)
[[ -n $declared ]] || { echo "test_exports: no HS_API declarations found in $*"; exit 1; }
leaked=$(comm -23 <(echo "$exported") <(echo "$declared"))
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
# The deprecated 1.x calls (HS_DEPRECATED after the parameter list; docs/library.md "One way to extend a call").
deprecated=$(cat "$@" | tr '\n' ' ' | tr ';' '\n' | grep -E '\) *HS_DEPRECATED\("' |
             grep -oE 'HS_API [^(]*[^a-zA-Z0-9_](hs_[a-zA-Z0-9_]+)\(' | sed -E 's/.*[^a-zA-Z0-9_](hs_[a-zA-Z0-9_]+)\($/\1/' |
             sort -u | grep -c . || true)
echo "test_exports: $(echo "$exported" | wc -l) symbols exported by $(basename "$lib"), $(echo "$declared" | wc -l) declared HS_API ($(( $(echo "$declared" | wc -l) - deprecated )) current, $deprecated deprecated)"
rc=0
if [[ -n $leaked ]]; then echo "exported but not public API:"; echo "$leaked" | sed 's/^/  /'; rc=1; fi
if [[ -n $missing ]]; then echo "public API but not exported:"; echo "$missing" | sed 's/^/  /'; rc=1; fi
non_hs=$(echo "$exported" | grep -v '^hs_' || true)
if [[ -n $non_hs ]]; then echo "exported symbols outside hs_*:"; echo "$non_hs" | sed 's/^/  /'; rc=1; fi
[[ $rc -ne 0 ]] || echo "test_exports: OK (only hs_*, exactly the header's HS_API list)"
exit $rc
