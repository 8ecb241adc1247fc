#!/usr/bin/env python3
"""Apple-silicon (arm64) assembly of the WMA hot loop from every side, produced on this x86 machine.

  python3 study/gap/retarget.py [--out reports/gap/asm/arm64] [--cpu apple-m2]

An approximation for reading and for llvm-mca until the same files are dumped on an M2 (study/gap/M2MAX.md
says how: there `asm.py` gives the real thing).  How each side is made:
  numba  NUMBA_DUMP_LLVM=1 gives the *unoptimised* IR numba hands to LLVM for wma and the helpers it links
         (np.full, the allocator); the modules are linked, retargeted (triple, datalayout) and put through
         llvmlite's LLVM O3 pipeline for arm64-apple-macosx / -mcpu, then emitted.
  rustc  `cargo rustc --release --lib -- --emit llvm-ir -C no-prepopulate-passes` (rustc's IR before any
         LLVM pass), x86 function attributes dropped, then the same O3 pipeline and emission.
  C      clang-19 --target=aarch64-linux-gnu -mcpu=<cpu> -S, the project's flags.
llvmlite bundles LLVM 22.1 and rustc 1.95 uses LLVM 22.1, so the optimiser is the same major version as
rustc's; numba's own pass pipeline differs in details from the plain O3 used here.  On the M2 the study ran
numba 0.64 / rustc 1.94, whose LLVMs are older: treat these loops as "what LLVM 22 does for this CPU".
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
import asm  # noqa: E402

TRIPLE = "arm64-apple-macosx13.0.0"
WORK = os.path.join(arms.BUILD, "arm64")


def target_machine(cpu):
    import llvmlite.binding as llvm
    for f in ("initialize_all_targets", "initialize_all_asmprinters"):
        try:
            getattr(llvm, f)()
        except Exception:
            pass
    return llvm.Target.from_triple(TRIPLE).create_target_machine(cpu=cpu, features="", opt=3, reloc="pic",
                                                                   codemodel="default")


def retarget_text(src, tm):
    src = re.sub(r'target datalayout = "[^"]*"', 'target datalayout = "%s"' % str(tm.target_data), src)
    src = re.sub(r'target triple = "[^"]*"', 'target triple = "%s"' % TRIPLE, src)
    src = re.sub(r'"target-cpu"="[^"]*"', "", src)
    src = re.sub(r'"target-features"="[^"]*"', "", src)
    src = src.replace('"probe-stack"="inline-asm"', "").replace(" nonlazybind", "")
    return re.sub(r"attributes #(\d+) = \{\s*\}", r"attributes #\1 = { nounwind }", src)


def optimise_and_emit(modules_text, tm, out):
    import llvmlite.binding as llvm
    main = None
    for text in modules_text:
        m = llvm.parse_assembly(retarget_text(text, tm))
        if main is None:
            main = m
        else:
            main.link_in(m)
    main.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_unrolling = True
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(main, pb)
    with open(out, "w") as f:
        f.write(tm.emit_assembly(main))
    return out


NUMBA_IR = r'''
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "peers", "numba"))
import numpy as np
import hma_numba as h
h.wma(np.ones(16), 3)
'''


def numba_side(tm, cpu):
    env = dict(os.environ, NUMBA_DUMP_LLVM="1")
    p = subprocess.run([arms.PY, "-c", NUMBA_IR, arms.ROOT], env=env, check=True, stdout=subprocess.PIPE, text=True)
    parts = re.split(r"^-+LLVM DUMP <function descriptor '([^']*)'>-+\n", p.stdout, flags=re.M)
    mods = [re.split(r"^=+$", parts[i + 1], flags=re.M)[0] for i in range(1, len(parts), 2)]
    return optimise_and_emit(mods, tm, os.path.join(WORK, "numba.%s.s" % cpu))


def rust_side(tm, cpu, patch=None):
    src = arms.rust_src(patch) if patch else os.path.join(arms.ROOT, "peers", "rust")
    tdir = os.path.join(WORK, "rust-noopt" + ("-" + patch if patch else ""))
    env = dict(os.environ, CARGO_TARGET_DIR=tdir, RUSTFLAGS="")
    subprocess.run(["cargo", "rustc", "--release", "--offline", "--quiet", "--lib", "--", "--emit", "llvm-ir",
                    "-C", "no-prepopulate-passes"], cwd=src, env=env, check=True)
    ll = max(glob.glob(os.path.join(tdir, "release", "deps", "hma_rust_peer*.ll")), key=os.path.getmtime)
    return optimise_and_emit([open(ll).read()], tm, os.path.join(WORK, "rust%s.%s.s" % ("-" + patch if patch else "", cpu)))


def c_side(kernel, cpu):
    out = os.path.join(WORK, "%s.clang19.%s.s" % (kernel, cpu))
    subprocess.run(["clang-19", "--target=aarch64-linux-gnu", "-mcpu=" + cpu] + arms.C_BASE_FLAGS +
                   ["-S", "-o", out, arms.c_kernel_source(kernel)], cwd=arms.ROOT, check=True,
                   stderr=subprocess.DEVNULL)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(arms.ROOT, "reports", "gap", "asm", "arm64"))
    ap.add_argument("--cpu", default="apple-m2")
    a = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    tm = target_machine(a.cpu)
    sides = []
    try:
        sides.append(("numba", numba_side(tm, a.cpu), None, "numba unoptimised IR -> LLVM 22 O3 for %s" % a.cpu))
    except Exception as e:  # noqa: BLE001 - report and go on with the other sides
        print("retarget: numba failed: %s" % e, file=sys.stderr)
    if arms.have("cargo"):
        for patch in (None, "i64"):
            try:
                s = rust_side(tm, a.cpu, patch)
                for impl, only in (("rust_safe", "4safe"), ("rust_unchecked", "9unchecked")):
                    sides.append((impl + ("@" + patch if patch else ""), s, only,
                                  "rustc unoptimised IR%s -> LLVM 22 O3 for %s" % (" (i64 patch)" if patch else "", a.cpu)))
            except Exception as e:  # noqa: BLE001
                print("retarget: rust %s failed: %s" % (patch, e), file=sys.stderr)
    if arms.have("clang-19"):
        for k in ("naive", "unchecked", "x_wu64", "x_unroll8"):
            try:
                sides.append((k + "@clang19", c_side(k, a.cpu), None,
                              "clang-19 --target=aarch64-linux-gnu -mcpu=%s -O3 -ffp-contract=off -S" % a.cpu))
            except subprocess.CalledProcessError as e:
                print("retarget: C %s failed: %s" % (k, e), file=sys.stderr)
    summary = {}
    for side, path, only, how in sides:
        loop = asm.hot_loop(open(path).read(), only)
        name = side.replace("@", ".")
        entry = {"how": how, "cpu": a.cpu, "asm_file": os.path.relpath(path, arms.ROOT)}
        if loop:
            with open(os.path.join(a.out, name + ".loop.s"), "w") as f:
                f.write("// %s for %s: the WMA inner loop (%s)\n// %s\n" % (side, a.cpu, loop["function"], how))
                f.write(loop["text"] + "\n")
            entry.update({k: v for k, v in loop.items() if k != "text"})
        summary[side] = entry
        print("retarget: %-24s %s" % (side, "loop: %d instr, %d elements, %.2f instr/element, conv %s" % (
            loop["instructions"], loop["elements"], loop["instructions_per_element"], ",".join(loop["conversion"]))
            if loop else "no hot loop found"), file=sys.stderr)
    with open(os.path.join(a.out, "loops.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
