# The skip policy for shell tests (tests/skips.allow says it in full).  Source this file, then
#   hs_skip TOOL "reason"
# prints "SKIPPED: TOOL: reason" and exits 77 (ctest: Skipped), except in CI (CI set, not "false"/"0")
# when TOOL is not on tests/skips.allow: then it prints why and exits 1, and the test fails.
hs_skip_allow="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/skips.allow"
hs_in_ci() { [[ -n ${CI:-} && ${CI:-} != false && ${CI:-} != 0 ]]; }
hs_skip() {
  local tool=$1 reason=$2
  if hs_in_ci && ! grep -q "^$tool[[:space:]]" "$hs_skip_allow"; then
    echo "FAIL: unexpected skip in CI (CI=$CI): $tool: $reason ('$tool' is not on tests/skips.allow)"
    exit 1
  fi
  echo "SKIPPED: $tool: $reason"
  exit 77
}
