#!/usr/bin/env bash
# What the test suite uses beyond the build (cmake/build_deps.sh), installed when missing — sourced by
# tests/run.sh (the README's test command) and .ci/run, so both install one list.  Without a package the
# tests that need it are reported as skipped, never as passed; in CI (CI=true) only a skip for a tool on
# tests/skips.allow is accepted, any other fails its test.
#   apt: Open MPI (hmasweep-mpi tests), iproute2 (the netns test), jansson (study/ipc's JSON server),
#        Python headers and venv (the extension; the pip-install check), chromium (hmasweep.report's page
#        in a real browser: ctest python_report_browser)
#   pip: numpy + numba + vectorbt (the peer checks), ta-lib + backtesting (TA-Lib's WMA against hmasweep.wma, on the
#        real quotes backtesting.py ships), pytest + hypothesis + pandas + matplotlib + mypy + tqdm + plotly (the Python package, its stubtest,
#        progress bar and report page),
#        scikit-build-core (pip install .), orjson + msgpack + pyarrow (study/ipc serialisation),
#        scipy + purgedcv + quantstats (the validation library's peers: python/tests/test_validation_peers.py)
HS_TEST_APT=(openmpi-bin libopenmpi-dev iproute2 libjansson-dev python3-dev python3-venv chromium)
HS_TEST_PIP=(numpy numba vectorbt ta-lib backtesting pytest hypothesis pandas matplotlib mypy tqdm plotly scikit-build-core orjson msgpack pyarrow scipy purgedcv quantstats)

hs_test_deps() {
  local missing=() pkg sudo_=""
  if command -v dpkg >/dev/null; then
    for pkg in "${HS_TEST_APT[@]}"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
    if [[ ${#missing[@]} -gt 0 ]]; then
      [[ $(id -u) -eq 0 ]] || sudo_="sudo"
      echo "hmasweep tests: installing ${missing[*]} (apt-get)" >&2
      { $sudo_ apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
        echo "hmasweep tests: apt-get failed; the tests needing ${missing[*]} will be skipped" >&2
    fi
  fi
  local mods=(numpy numba vectorbt talib backtesting pytest hypothesis pandas matplotlib mypy tqdm plotly scikit_build_core orjson msgpack pyarrow scipy purgedcv quantstats)
  if ! python3 -c "import $(IFS=,; echo "${mods[*]}")" 2>/dev/null; then
    echo "hmasweep tests: installing ${HS_TEST_PIP[*]} (pip)" >&2
    python3 -m pip install -q "${HS_TEST_PIP[@]}" || echo "hmasweep tests: pip failed; the tests needing them will be skipped" >&2
  fi
}
hs_test_deps
