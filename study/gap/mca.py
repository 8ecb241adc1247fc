#!/usr/bin/env python3
"""llvm-mca on the extracted WMA hot loops (study/gap/asm.py, study/gap/retarget.py).

  python3 study/gap/mca.py [--asm reports/gap/asm] [--out reports/gap/raw/mca.json] [--mca llvm-mca-19]

Two questions per loop and CPU model:
  steady   the loop as extracted, iterated (llvm-mca -iterations=200): cycles per element when one
           window's sum runs alone.  The sum is one chain of dependent adds, so every implementation should
           come out at the add latency per element: the inner loop alone cannot tell them apart.
  trace:W  one whole outer iteration at window W as straight-line code: the loop body repeated W/elements
           times, then the accumulator zeroed (a dependency-breaking idiom) as the next output starts.
           Iterating that block lets the model overlap successive outputs' independent chains, as an
           out-of-order core with perfect branch prediction does: then instructions per element matter.
Models: x86 icelake-server (this machine is a Granite Rapids-class Xeon; llvm-mca 19's sapphirerapids and
alderlake models do not treat `pxor x, x` / `xorps x, x` as dependency-breaking, which turns every SSE
cvtsi2sd loop into a false chain of ~12 cycles per element, so the Ice Lake server model is used), znver4, znver5; arm64 apple-a14 (M1's core) and apple-a15 (M2's), which llvm-mca 19
schedules with its one Apple model, CycloneModel (an A7-era description: treat its Apple numbers as rough).
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arms  # noqa: E402
import asm as asmmod  # noqa: E402

X86_CPUS = ["icelake-server", "znver4", "znver5"]
ARM_CPUS = ["apple-a14", "apple-a15"]
WINDOWS = [16, 128]


def body_lines(text, arm):
    """The loop's instructions; every branch retargeted to one label `Lgap` defined on top (Mach-O needs
    local labels defined), so the block assembles on its own and can be repeated."""
    out = []
    for ln in text.splitlines():
        t = (ln.split("//")[0] if arm else ln.split("#")[0]).rstrip()
        s = t.strip()
        if not s or s.startswith((".", "//", "#")) or asmmod.LABEL.match(s):
            continue
        m = asmmod.JUMP.match(s)
        if m:
            s = s[: s.rfind(m.group(2))] + "Lgap"
        out.append(s)
    return out


def accumulator(lines, arm):
    """The register that carries the sum from one loop iteration to the next: the destination of the
    body's last scalar add (unrolled bodies may rotate the sum through several registers)."""
    last = None
    for s in lines:
        m = re.match(r"fadd\s+(d\d+),", s) if arm else re.match(r"v?addsd\s+(.*)", s)
        if m:
            last = m.group(1) if arm else [o.strip() for o in m.group(1).split(",")][-1]
    return last if last and last.startswith(("%xmm", "d")) else None


def trace(lines, elements, w, arm):
    acc = accumulator(lines, arm)
    if acc is None or elements < 1:
        return None
    reps = max(1, -(-w // elements))
    vex = any(l.startswith("v") for l in lines)
    if arm:
        zero = "movi %s, #0000000000000000" % acc
    else:
        zero = ("vxorpd %s, %s, %s" % (acc, acc, acc)) if vex else ("xorpd %s, %s" % (acc, acc))
    return ["Lgap:"] + lines * reps + [zero], reps * elements


def run_mca(mca, triple, cpu, lines, iterations):
    if lines and lines[0] != "Lgap:":
        lines = ["Lgap:"] + lines
    p = subprocess.run([mca, "-mtriple=" + triple, "-mcpu=" + cpu, "-iterations=%d" % iterations,
                        "-timeline=false", "-resource-pressure=false", "-instruction-info=false"],
                       input="\n".join(lines) + "\n", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return {"error": p.stderr.strip()[-300:]}
    r = {}
    for key, pat in [("cycles", r"Total Cycles:\s+(\d+)"), ("uops", r"Total uOps:\s+(\d+)"),
                     ("ipc", r"IPC:\s+([\d.]+)"), ("rthroughput", r"Block RThroughput:\s+([\d.]+)")]:
        m = re.search(pat, p.stdout)
        if m:
            r[key] = float(m.group(1))
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--asm", default=os.path.join(arms.ROOT, "reports", "gap", "asm"))
    ap.add_argument("--out", default=os.path.join(arms.ROOT, "reports", "gap", "raw", "mca.json"))
    ap.add_argument("--mca", default=shutil.which("llvm-mca-19") or shutil.which("llvm-mca") or "llvm-mca")
    a = ap.parse_args()
    version = subprocess.run([a.mca, "--version"], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"LLVM version ([\d.]+)", version)
    result = {"llvm_mca": a.mca, "llvm_version": m.group(1) if m else "?", "x86_cpus": X86_CPUS,
              "arm_cpus": ARM_CPUS, "windows": WINDOWS, "loops": {}}
    # The top directory holds this machine's own loops (x86 here, arm64 on a Mac); arm64/ the retargets.
    for sub, arm in (("", not arms.X86), ("arm64", True)):
        d = os.path.join(a.asm, sub)
        lj = os.path.join(d, "loops.json")
        if not os.path.exists(lj):
            continue
        loops = json.load(open(lj))
        for side, info in loops.items():
            path = os.path.join(d, side.replace("@", ".") + ".loop.s")
            if not os.path.exists(path) or not info.get("elements"):
                continue
            lines = body_lines(open(path).read(), arm)
            el = info["elements"]
            key = ("arm64:" if arm else "x86:") + side
            res = {"elements": el, "instructions": len(lines), "models": {}}
            for cpu in (ARM_CPUS if arm else X86_CPUS):
                triple = "arm64-apple-macosx" if arm else "x86_64-unknown-linux-gnu"
                st = run_mca(a.mca, triple, cpu, lines, 200)
                entry = {"steady": st}
                if "cycles" in st:
                    entry["steady_cycles_per_element"] = round(st["cycles"] / 200 / el, 3)
                for w in WINDOWS:
                    t = trace(lines, el, w, arm)
                    if t is None:
                        continue
                    tl, n_el = t
                    tr = run_mca(a.mca, triple, cpu, tl, 50)
                    if "cycles" in tr:
                        entry["trace%d_cycles_per_element" % w] = round(tr["cycles"] / 50 / n_el, 3)
                res["models"][cpu] = entry
            result["loops"][key] = res
            print("mca: %-30s %s" % (key, "  ".join("%s %s/%s/%s" % (
                c, e.get("steady_cycles_per_element"), e.get("trace16_cycles_per_element"),
                e.get("trace128_cycles_per_element")) for c, e in res["models"].items())), file=sys.stderr)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
