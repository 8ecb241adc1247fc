#!/usr/bin/env python3
"""Deterministic instruction (and optionally cache/branch) counts of one arm under valgrind.

  python3 study/gap/valgrind.py ARM SERIES.f64 [--cache] [--callgrind-out FILE] [--json OUT.json]

ARM is any study/gap/arms.py arm (numba, rust_safe@native, unchecked@clang14, ...).  valgrind 3.19 cannot
run AVX-512, so an arm built for this AVX-512 host is counted through its x86-64-v3 proxy (the same source
and compiler, -march/target-cpu x86-64-v3); the JSON says which ("counted_as").

C and Rust arms: `valgrind --tool=cachegrind` on the whole process (start-up and reading the series are
well under 0.1% of a sweep).  numba: `valgrind --tool=callgrind --instr-atstart=no` on
study/gap/numba_once.py, which switches instrumentation on around the one sweep only (the import and the
JIT compile are not counted).  --cache adds the cache simulation (I1/D1/LL misses) and --branch-sim
(conditional branches and a simple predictor's mispredicts); plain runs count Ir only (faster).

Use it as an A/B signal: the counts do not move with machine load.  To read the hot loop line by line:
  valgrind --tool=callgrind --dump-instr=yes BINARY ... && callgrind_annotate --auto=yes callgrind.out.*
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arms  # noqa: E402

VGCTL = os.path.join(arms.BUILD, "libvgctl.so")


def vgctl():
    src = os.path.join(arms.ROOT, "study", "gap", "vgctl.c")
    if not os.path.exists(VGCTL) or os.path.getmtime(VGCTL) < os.path.getmtime(src):
        os.makedirs(arms.BUILD, exist_ok=True)
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", VGCTL, src], check=True)
    return VGCTL


def parse(stderr):
    out = {}
    for key, pat in [("Ir", r"I\s+refs:\s+([\d,]+)"), ("I1mr", r"I1\s+misses:\s+([\d,]+)"),
                     ("LLi", r"LLi misses:\s+([\d,]+)"), ("Dr_Dw", r"D\s+refs:\s+([\d,]+)"),
                     ("D1m", r"D1\s+misses:\s+([\d,]+)"), ("LLd", r"LLd misses:\s+([\d,]+)"),
                     ("Bc", r"Branches:\s+([\d,]+)"), ("Bm", r"Mispredicts:\s+([\d,]+)"),
                     ("collected", r"Collected\s*:\s*([\d ]+)")]:
        m = re.findall(pat, stderr)
        if m:
            out[key] = int(m[-1].replace(",", "").split()[0])
    if "collected" in out:
        out["Ir"] = out.pop("collected")
    return out


def count(arm, series, cache=False, callgrind_out=None):
    counted = arms.valgrind_proxy(arm)
    if counted is None:
        return {"arm": arms.canonical(arm), "counted_as": None, "why": "no AVX-512-free proxy for this arm"}
    tmp = tempfile.mkdtemp(prefix="gapvg")
    k = arms.kind(counted)
    opts = ["--cache-sim=yes", "--branch-sim=yes"] if cache else ["--cache-sim=no"]
    if k == "numba":
        impl, b = arms.split(counted)
        env = dict(os.environ, **arms.NUMBA_BUILDS[b])
        out = callgrind_out or os.path.join(tmp, "callgrind.out")
        argv = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=" + out] + opts + \
               [arms.PY, os.path.join(arms.ROOT, "study", "gap", "numba_once.py"), series, vgctl()]
    else:
        argv, env = arms.command(counted, series, 1, os.path.join(tmp, "out.json"))
        if callgrind_out:
            argv = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + callgrind_out] + opts + argv
        else:
            argv = ["valgrind", "--tool=cachegrind", "--cachegrind-out-file=" + os.path.join(tmp, "cg.out")] + \
                   opts + argv
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("valgrind %s failed (%d): %s" % (counted, p.returncode, p.stderr[-1500:]))
    doc = {"arm": arms.canonical(arm), "counted_as": counted, "series": os.path.basename(series),
           "bars": os.path.getsize(series) // 8, "tool": argv[1].split("=")[1]}
    doc.update(parse(p.stderr))
    return doc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("arm")
    ap.add_argument("series")
    ap.add_argument("--cache", action="store_true")
    ap.add_argument("--callgrind-out")
    ap.add_argument("--json")
    a = ap.parse_args()
    arms.build([arms.valgrind_proxy(a.arm) or a.arm])
    doc = count(a.arm, os.path.abspath(a.series), a.cache, a.callgrind_out)
    text = json.dumps(doc, indent=1)
    if a.json:
        open(a.json, "w").write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
