"""study/validation/calibrate.py --quick (the script behind reports/validation.md's "Calibration"): it runs
against the package under test and what it writes says what the report reads: a planted edge drives PBO
to 0 while the null does not, and the default fee makes every null combo lose out of sample."""
import json
import os
import subprocess
import sys

import hmasweep as hs
from conftest import SOURCE_DIR


def test_calibrate_quick(tmp_path):
    env = dict(os.environ, HS_PYTHON_DIR=os.path.dirname(os.path.dirname(os.path.abspath(hs.__file__))),
               MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, str(SOURCE_DIR / "study" / "validation" / "calibrate.py"), "--quick",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    out = json.loads((tmp_path / "validation_quick_calibration.json").read_text())
    rows = {r["scenario"]: r for r in out["rows"]}
    assert (tmp_path / "validation_quick_lambdas.png").stat().st_size > 5000
    assert rows["null, fee 0"]["runs"] == 3 and rows["null, fee 0"]["groups"] == 8
    assert rows["edge phi 0.1, fee 0"]["pbo_max"] == 0.0 and rows["edge phi 0.1, fee 0"]["dsr_median"] > 0.95
    assert rows["null, fee 0"]["pbo_mean"] > 0.2
    assert rows["null, fee 0.0009"]["prob_oos_loss_mean"] > 0.9 and rows["null, fee 0.0009"]["share_combos_profitable"] == 0
    assert "| null, fee 0 | 3 | 48 / 8 |" in p.stdout
