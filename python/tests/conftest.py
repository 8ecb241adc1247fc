"""Shared fixtures: where the repository's data and the CLI are (ctest sets HS_SOURCE_DIR and HS_CLI), and the
real quotes."""
import csv
import importlib.util
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("HS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def load_source(relative_path, name):
    """A module of this repository that is not in the package (a peer), loaded from its file."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, SOURCE_DIR / relative_path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def real_quotes():
    """Real daily and hourly closes: GOOG 2004-2013 (2,148 days) and EURUSD 2017-2018 (5,000 hours), the
    CSV files that backtesting.py (pip backtesting; tests/deps.sh) ships as its test data.  Read from the
    installed package at test time: the data is not ours to commit (backtesting.py is AGPL)."""
    spec = importlib.util.find_spec("backtesting")  # the files only: nothing of the package is imported
    if spec is None:
        pytest.skip("backtesting: not installed (pip install backtesting: its real quotes; CI installs it)")
    out = {}
    for name in ("GOOG", "EURUSD"):
        with open(f"{spec.submodule_search_locations[0]}/test/{name}.csv") as f:
            out[name] = np.array([float(row["Close"]) for row in csv.DictReader(f)])
    return out


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR


@pytest.fixture(scope="session")
def golden():
    """tests/golden/default_run.json: the 80 combos of the default run (made by the C reference, checked
    against the numba and Rust peers)."""
    with open(SOURCE_DIR / "tests" / "golden" / "default_run.json") as f:
        g = json.load(f)
    combos = g["combos"]
    return {
        "sha256": g["series_sha256"],
        "lengths": np.array([c["length"] for c in combos], dtype=np.int64),
        "windows": np.array([c["windows"] for c in combos], dtype=np.int64),
        "trades": np.array([c["trades"] for c in combos], dtype=np.int64),
        "pnl": np.array([c["pnl"] for c in combos], dtype=np.float64),
    }


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("HS_CLI")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("HS_CLI (the built hmasweep CLI) is not set; run through ctest python_package")
    return path


@pytest.fixture(scope="session")
def default_series():
    import hmasweep

    return hmasweep.series()


def stop_process(proc, timeout=20):
    """Terminate a server the tests started; kill it if it does not stop within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
