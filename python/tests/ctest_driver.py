#!/usr/bin/env python3
"""ctest `python_package`: run the package's pytest suite against the build tree's package.

usage: ctest_driver.py BUILD_PYTHON_DIR TESTS_DIR [pytest args...]
Exit 77 (ctest: skipped) only when a test tool is truly absent (pytest, hypothesis, numpy); CI installs
them (.ci/run), so there the suite runs."""
import importlib.util
import os
import sys

build_dir, tests_dir, *extra = sys.argv[1:]
missing = [m for m in ("numpy", "pytest", "hypothesis") if importlib.util.find_spec(m) is None]
if missing:
    print("SKIPPED: python_package needs %s (pip install pytest hypothesis numpy pandas)" % ", ".join(missing))
    sys.exit(77)
sys.path.insert(0, build_dir)
os.environ["PYTHONPATH"] = build_dir + os.pathsep + os.environ.get("PYTHONPATH", "")
import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-o", "console_output_style=classic", tests_dir, *extra]))
