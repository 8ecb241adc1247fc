#!/usr/bin/env bash
# Issue 8 §4: the CLI and the user-facing benchmarks use the public API only.  No file among them may
# include a header of src/ (the private part of the library).
# Usage: test_public_headers.sh SOURCE_DIR
# Not among them: the server application (cli/server/: serve's and wire's sessions), which is built with
# the library's private error and live headers (cli/server/server.cmake).
set -euo pipefail
src=${1:?source dir}
cd "$src"
private=$(ls src/*/*.h 2>/dev/null | xargs -n1 basename | sort -u)
[[ -n "$private" ]] || { echo "FAIL: found no private headers under src/ (wrong dir?)"; exit 1; }
users=(cli/*.c cli/*.h prof/bench_variants.cc)
bad=0
for f in "${users[@]}"; do
  while IFS= read -r h; do
    if grep -qxF "$h" <<<"$private"; then echo "FAIL: $f includes private header $h"; bad=1; fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | xargs -rn1 basename)
done
[[ $bad == 0 ]] || exit 1
echo "OK: ${#users[@]} CLI/benchmark files include no private header ($(wc -w <<<"$private") private headers checked)"
