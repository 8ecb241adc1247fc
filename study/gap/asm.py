#!/usr/bin/env python3
"""The WMA hot loop's assembly and LLVM IR from every side: numba, rustc, gcc, clang.

  python3 study/gap/asm.py [--out reports/gap/asm] [--sides numba@host,rust_safe@base,unchecked@gcc,...]

Where each comes from (full files under build/gap/asm/, excerpts under --out):
  numba   the peer's own dispatcher: `wma.inspect_asm(sig)` / `wma.inspect_llvm(sig)` after one call
          (run in a child process so NUMBA_CPU_NAME can select the target: host or generic)
  rustc   `cargo rustc --release --lib -- --emit asm,llvm-ir` on the peer crate (or the i64-patched copy),
          with the build's RUSTFLAGS (study/gap/arms.py)
  gcc     `gcc <project flags> <build flags> -S src/variants/<kernel>.c` (an instrument's: study/gap/instruments/)
  clang   the same with clang-14/clang-19, plus `-S -emit-llvm` for the IR

The hot loop is found, not named: the innermost loop (a backward branch) whose body has a scalar FP
multiply, a scalar FP add and an int->float conversion (or, for x_wfloat, two FP adds), and no division
or FP compare (which excludes the event loop).  Of several (unrolled main loop + remainder) the one with
the most adds wins.  Its statistics (instructions, elements per iteration, conversion, in-loop exits)
go to loops.json; the loop text to <side>.loop.s and the IR block to <side>.loop.ll.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arms  # noqa: E402

FULL = os.path.join(arms.BUILD, "asm")

DEFAULT_SIDES = ["numba@host", "numba@generic",
                 "rust_safe@base", "rust_unchecked@base", "rust_unchecked@i64", "rust_safe@native",
                 "rust_unchecked@native",
                 "naive@gcc", "unchecked@gcc", "unchecked@gcc-native", "unchecked@gcc-nobreak", "x_wu64@gcc",
                 "x_unroll8@gcc", "x_wfloat@gcc",
                 "naive@clang14", "unchecked@clang14", "x_wu64@clang14",
                 "naive@clang19", "unchecked@clang19", "x_wu64@clang19", "unchecked@clang19-native"]

NUMBA_DUMP = r'''
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "peers", "numba"))
import numpy as np
import hma_numba as h
import llvmlite.binding as ll
close = h.make_close(1, 512, 0.0008, 100.0)
h.sweep(close, np.array([h.windows_from_length(6)], dtype=np.int64), h.FEE)
sig = h.wma.signatures[0]
open(sys.argv[2] + ".s", "w").write(h.wma.inspect_asm(sig))
open(sys.argv[2] + ".ll", "w").write(h.wma.inspect_llvm(sig))
print(os.environ.get("NUMBA_CPU_NAME") or ll.get_host_cpu_name())
'''


# ---- producing the full files ---------------------------------------------------------------------
def produce(side):
    """(asm_path, ir_path, note) for one side, written under build/gap/asm/."""
    os.makedirs(FULL, exist_ok=True)
    impl, b = arms.split(side)
    base = os.path.join(FULL, side.replace("@", "."))
    k = arms.kind(side)
    if k == "numba":
        env = dict(os.environ, **arms.NUMBA_BUILDS[b])
        p = subprocess.run([arms.PY, "-c", NUMBA_DUMP, arms.ROOT, base], env=env, check=True,
                           stdout=subprocess.PIPE, text=True)
        return base + ".s", base + ".ll", "numba wma.inspect_asm/inspect_llvm, target cpu %s" % p.stdout.strip()
    if k == "rust":
        s, ll = arms.emit_rust(b)
        return s, ll, "cargo rustc --release --lib -- --emit asm,llvm-ir; RUSTFLAGS=%r%s" % (
            arms.RUST_BUILDS[b][1], "; i64 patch" if arms.RUST_BUILDS[b][0] else "")
    cc, flags = arms.C_BUILDS[b]
    src = arms.c_kernel_source(impl)
    cmd = [cc] + arms.C_BASE_FLAGS + flags + ["-S", "-o", base + ".s", src]
    subprocess.run(cmd, cwd=arms.ROOT, check=True, stderr=subprocess.DEVNULL)
    ir = None
    if cc == "gcc" and not arms.DARWIN:
        # gcc has no LLVM IR; its counterpart is the optimised GIMPLE of the function holding the loop.
        dump = base + ".gimple"
        subprocess.run([cc] + arms.C_BASE_FLAGS + flags + ["-S", "-o", os.devnull, "-fdump-tree-optimized=" + dump,
                                                           src], cwd=arms.ROOT, check=True, stderr=subprocess.DEVNULL)
    if cc.startswith("clang"):
        subprocess.run([cc] + arms.C_BASE_FLAGS + flags + ["-S", "-emit-llvm", "-o", base + ".ll", src],
                       cwd=arms.ROOT, check=True, stderr=subprocess.DEVNULL)
        ir = base + ".ll"
    return base + ".s", ir, " ".join(cmd)


# ---- finding the hot loop in assembly ---------------------------------------------------------------
LABEL = re.compile(r"^([.\w$]+):")
FUNC = re.compile(r"^\s*\.type\s+([^,]+),\s*@function")
JUMP = re.compile(r"^\s*(j[a-z]+|b\.[a-z]+|b|cbn?z|tbn?z)\s+(?:[^,]*,\s*)*([.\w$]+)\s*$")


def instructions(lines):
    out = []
    for ln in lines:
        t = ln.split("#")[0].rstrip() if not ln.lstrip().startswith("//") else ""
        if not t.strip() or LABEL.match(t.strip()) or t.strip().startswith("."):
            continue
        out.append(t.strip())
    return out


def functions(text):
    """[(name, lines)] split at `.type name,@function` (ELF) or at top-level labels without a dot."""
    lines = text.splitlines()
    starts = []
    for i, ln in enumerate(lines):
        m = FUNC.match(ln)
        if m:
            starts.append((i, m.group(1).strip()))
    if not starts:
        starts = [(i, LABEL.match(ln).group(1)) for i, ln in enumerate(lines)
                  if LABEL.match(ln) and not ln.startswith((".", "L"))]
    res = []
    for n, (i, name) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        res.append((name, lines[i:end]))
    return res


FMUL = re.compile(r"\bv?mul(sd|pd)\b|\bfmul\b")
FADD_SCALAR = re.compile(r"\bv?addsd\b|\bfadd\s+d\d")
CONV = re.compile(r"cvt|punpckldq|\b[su]cvtf\b")
BAD = re.compile(r"\bv?divsd\b|\bv?u?comisd\b|\bfdiv\b|\bfcmp\b")


def loops_in(lines):
    labels = {}
    for i, ln in enumerate(lines):
        m = LABEL.match(ln.strip())
        if m:
            labels[m.group(1)] = i
    loops = []
    for i, ln in enumerate(lines):
        m = JUMP.match(ln.split("#")[0].split("//")[0].rstrip())
        if m and m.group(2) in labels and labels[m.group(2)] < i:
            loops.append((labels[m.group(2)], i))
    inner = [l for l in loops if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
    return inner


def hot_loop(text, only=None):
    best = None
    for fname, lines in functions(text):
        if only and only not in fname:
            continue
        for a, b in loops_in(lines):
            body = lines[a:b + 1]
            ins = instructions(body)
            joined = "\n".join(ins)
            n_add = len(FADD_SCALAR.findall(joined))
            if not FMUL.search(joined) or n_add == 0 or BAD.search(joined):
                continue
            if not CONV.search(joined) and n_add < 2:
                continue
            key = (n_add, len(ins))
            if best is None or key > best[0]:
                best = (key, fname, body, ins)
    if best is None:
        return None
    _, fname, body, ins = best
    joined = "\n".join(ins)
    n_mul = len(re.findall(r"\bv?mulsd\b|\bfmul\s+d\d", joined))
    n_mulpd = len(re.findall(r"\bv?mulpd\b|\bfmul\.2d|\bfmul\s+v\d+\.2d", joined))
    n_add = len(FADD_SCALAR.findall(joined))
    elements = n_add if n_mulpd else n_mul
    jumps = [i for i in ins if JUMP.match(i)]
    conv = sorted(set(re.findall(r"\b(v?cvtu?si2sdq?|v?cvtqq2pd|punpckldq|[su]cvtf)\b", joined)))
    return {"function": fname, "instructions": len(ins), "elements": elements,
            "instructions_per_element": round(len(ins) / max(elements, 1), 2),
            "conversion": conv, "branches_in_loop": len(jumps), "text": "\n".join(l.rstrip() for l in body)}


# ---- finding the hot loop in LLVM IR -----------------------------------------------------------------
def ir_hot_block(text, only=None):
    best = None
    if only:  # keep only the functions whose name has `only`
        parts = re.split(r"\n(?=define )", text)
        text = "\n".join(p for p in parts if p.startswith("define ") and only in p.split("(")[0])
    blocks = re.split(r"\n(?=[\w.$\-]+:)", text)
    for idx, blk in enumerate(blocks):
        n_add = len(re.findall(r"= fadd double", blk))
        if n_add == 0 or "fmul double" not in blk or "fdiv" in blk or "fcmp" in blk:
            continue
        if not re.search(r"[su]itofp (nneg )?i64", blk) and n_add < 2:
            continue
        key = (n_add, len(blk))
        if best is None or key > best[0]:
            best = (key, idx)
    if best is None:
        return None
    idx = best[1]
    blk = blocks[idx]
    end = blk.find("\n\n")
    blk = blk if end < 0 else blk[:end]
    prev = blocks[idx - 1].rstrip() if idx else ""
    if re.search(r"br i1 .*label %panic", prev.splitlines()[-1] if prev else ""):
        blk = prev + "\n\n" + blk  # the bounds-check block that guards this one
    conv = sorted(set(re.findall(r"\b([su]itofp (?:nneg )?)i64", blk)))
    conv = [c.strip() for c in conv]
    return {"conversion": conv, "fadd": len(re.findall(r"= fadd double", blk)), "text": blk.rstrip()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(arms.ROOT, "reports", "gap", "asm"))
    ap.add_argument("--sides", default=",".join(DEFAULT_SIDES))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    summary = {}
    for side in [arms.canonical(s) for s in a.sides.split(",") if s]:
        ok, why = arms.buildable(side)
        if not ok:
            print("asm: skip %s (%s)" % (side, why), file=sys.stderr)
            continue
        try:
            s_path, ll_path, note = produce(side)
        except subprocess.CalledProcessError as e:
            print("asm: %s failed: %s" % (side, e), file=sys.stderr)
            continue
        impl = arms.split(side)[0]
        # Both Rust kernels live in one crate: pick the module (mangled `4safe` / `9unchecked`).
        only = {"rust_safe": "4safe", "rust_unchecked": "9unchecked"}.get(impl)
        loop = hot_loop(open(s_path).read(), only)
        ir = ir_hot_block(open(ll_path).read(), only) if ll_path and os.path.exists(ll_path) else None
        name = side.replace("@", ".")
        entry = {"how": note, "asm_file": os.path.relpath(s_path, arms.ROOT)}
        if loop:
            with open(os.path.join(a.out, name + ".loop.s"), "w") as f:
                f.write("# %s: the WMA inner loop (%s)\n# %s\n" % (side, loop["function"], note))
                f.write(loop["text"] + "\n")
            entry.update({k: v for k, v in loop.items() if k != "text"})
        if ir:
            with open(os.path.join(a.out, name + ".loop.ll"), "w") as f:
                f.write("; %s: the WMA inner loop's LLVM IR block\n; %s\n" % (side, note))
                f.write(ir["text"] + "\n")
            entry["ir_conversion"] = ir["conversion"]
            entry["ir_fadds"] = ir["fadd"]
        gimple = os.path.splitext(s_path)[0] + ".gimple"
        if os.path.exists(gimple):
            text = open(gimple).read()
            parts = re.split(r"\n(?=;; Function )", text)
            wma = [p for p in parts if p.startswith(";; Function port_wma")]
            if wma:
                with open(os.path.join(a.out, name + ".port_wma.gimple"), "w") as f:
                    f.write("// %s: gcc's optimised GIMPLE of port_wma (-fdump-tree-optimized)\n" % side)
                    f.write(wma[0].rstrip() + "\n")
                entry["gimple"] = name + ".port_wma.gimple"
        summary[side] = entry
        print("asm: %-26s %s" % (side, "loop: %d instr, %d elements, %.2f instr/element, conv %s, %d branches" % (
            loop["instructions"], loop["elements"], loop["instructions_per_element"], ",".join(loop["conversion"]),
            loop["branches_in_loop"]) if loop else "no hot loop found"), file=sys.stderr)
    with open(os.path.join(a.out, "loops.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    side_by_side(a.out, [s for s in ("numba@host", "rust_safe@base", "rust_unchecked@base", "unchecked@gcc",
                                     "unchecked@clang19") if s in summary])


def side_by_side(out, sides, width=44):
    """The key loops in columns: numba | rustc (safe, unchecked) | gcc | clang, one instruction a line."""
    cols = []
    for side in sides:
        p = os.path.join(out, side.replace("@", ".") + ".loop.s")
        if not os.path.exists(p):
            continue
        lines = [re.sub(r"\s+#.*$", "", l.replace("\t", " ")).strip() for l in open(p).read().splitlines()
                 if not l.startswith("#")]
        lines = [l for l in lines if l]
        cols.append([arms.label(side), "-" * min(width - 2, len(arms.label(side)))] +
                    [l[: width - 2] for l in lines])
    if not cols:
        return
    n = max(len(c) for c in cols)
    with open(os.path.join(out, "side_by_side.txt"), "w") as f:
        f.write("The WMA inner loop, side by side (full excerpts: <side>.loop.s; IR: <side>.loop.ll)\n\n")
        for i in range(n):
            f.write("".join((c[i] if i < len(c) else "").ljust(width) for c in cols).rstrip() + "\n")


if __name__ == "__main__":
    main()
