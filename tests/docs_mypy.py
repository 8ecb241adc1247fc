#!/usr/bin/env python3
"""ctest `docs_mypy_strict`: `mypy --strict` accepts the README's Python example and the research session
(study/research.py, the script and the code of each step), against the package's stubs (issue 28 item 6).

usage: docs_mypy.py SOURCE_DIR BUILD_PYTHON_DIR

Files checked, written into a scratch directory:
- readme_example.py: every ```python block of README.md, in order (tests/docs_python_examples.py runs them);
- research_session.py: the code of study/research.py's SESSION steps, in order, after the names the script
  puts in their namespace (os, time, pd, OUT, HTML: run_session);
- study/research.py itself;
- indexing.py: what a user writes next (r.lengths[best], r.wins[best], r.max_drawdown[best], r.stats[...],
  a 2-D grid's hma_lengths, the equity of a sweep with periods=) must type-check, and what is None for
  that sweep must not.
Exit 0 when mypy succeeds, else 1 with its report; 77 (Skipped; in CI a failure) without mypy.
"""
import importlib.util
import os
import pathlib
import re
import runpy
import subprocess
import sys
import tempfile

SESSION_NAMESPACE = '''\
import os
import time
import pandas as pd  # type: ignore[import-untyped, unused-ignore]
OUT: str = "reports"
HTML: str = "research.html"
'''

INDEXING = '''\
import numpy as np
import hmasweep as hs
close = hs.series(bars=1000)
r = hs.sweep(close, range(6, 60))
best = int(np.argmax(r.pnl))
length: int = int(r.lengths[best])
wins: int = int(r.wins[best])
dd: float = float(r.max_drawdown[best])
stats_wins = r.stats["wins"][best]
threads: int = r.threads
g = hs.sweep(close, hma=[6, 8], hma3=[6, 10])
pair = (int(g.hma_lengths[0]), int(g.hma3_lengths[0]))
w = hs.sweep(close, windows=[[3, 6, 2, 1, 2, 3]])
def any_result(x: hs.SweepResult) -> int:
    return len(x.pnl)
n = any_result(r) + any_result(g) + any_result(w)
w.lengths[0]  # E: a sweep over raw windows has no lengths
g.lengths[0]  # E: nor does the 2-D grid
p = hs.sweep(close, range(6, 60), periods=10)
last: float = float(p.equity[-1, best]) + float(p.mtm_max_drawdown[best])
ends: int = int(p.period_ends[-1])
gp = hs.sweep(close, hma=[6, 8], hma3=[6, 10], periods="D")
eq_shape = gp.equity.shape
r.equity[-1]  # E: a sweep without periods has no equity
'''


def main():
    source_dir, build_py = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    if importlib.util.find_spec("mypy") is None:
        sys.path.insert(0, str(source_dir / "tests"))
        import skip_policy

        skip_policy.skip("mypy", "mypy is not installed (pip install mypy; tests/deps.sh installs it)")
    readme = (source_dir / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S)
    if not blocks:
        raise SystemExit("README.md has no ```python block")
    saved_argv, sys.argv = sys.argv, ["research.py"]
    session = runpy.run_path(str(source_dir / "study" / "research.py"), run_name="research_steps")["SESSION"]
    sys.argv = saved_argv
    with tempfile.TemporaryDirectory(prefix="hs_mypy_") as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "readme_example.py").write_text("".join(blocks))
        (tmp / "research_session.py").write_text(SESSION_NAMESPACE + "\n".join(code for _, _, code in session))
        (tmp / "indexing.py").write_text(INDEXING)
        env = dict(os.environ, PYTHONPATH=str(build_py), MYPYPATH=str(build_py))
        cmd = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp / "cache"),
               "readme_example.py", "research_session.py", "indexing.py", str(source_dir / "study" / "research.py")]
        out = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    print(out.stdout + out.stderr)
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    expected = {"indexing.py:%d" % (n + 1) for n, line in enumerate(INDEXING.splitlines()) if "# E:" in line}
    flagged = {":".join(line.split(":")[:2]) for line in errors}
    if flagged != expected:
        print("FAIL: mypy --strict flagged %s; expected exactly %s" % (sorted(flagged), sorted(expected)))
        return 1
    print("docs_mypy_strict: README example, research session and research.py clean; the three None fields flagged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
