#!/usr/bin/env python3
"""The arms of the numba-vs-Rust gap study: what each one is, how it is built, how it is run.

An arm is IMPL@BUILD:
  IMPL   numba                      the numba peer (peers/numba/hma_numba.py, imported unchanged and run by
                                    study/gap/numba_time.py to get its CPU time too), single thread
         rust_safe, rust_unchecked  the Rust peer's two binaries (peers/rust)
         naive unchecked prealloc x_wfloat x_wu64 x_unroll8 x_checked_unroll8 x_prefixnan x_recip
                                    the C port's kernels (src/variants/port.h), built into study/gap/portbench
  BUILD  (default: host for numba, base for Rust, gcc for C)
         numba: host      numba as shipped: LLVM compiles for the host CPU (llvmlite's get_host_cpu_name)
                generic   NUMBA_CPU_NAME=generic: the x86-64 baseline, what rustc targets by default
                v3        NUMBA_CPU_NAME=x86-64-v3 (AVX2, no AVX-512: what valgrind can run)
         rust:  base      `cargo build --release`, unchanged peer sources (= the peer's own build)
                native    RUSTFLAGS="-C target-cpu=native"
                v3        RUSTFLAGS="-C target-cpu=x86-64-v3"
                i64, i64-native, i64-v3
                          the peer sources with ONE substitution in wma(): `(j + 1) as f64` ->
                          `(j as i64 + 1) as f64` (the weight converted from a signed integer, as numba's
                          int64 is), otherwise as above
         C:     gcc, gcc-native, gcc-v3, gcc-nobreak (gcc without the xor that breaks cvtsi2sd's false
                dependency), gcc-align64 (-falign-loops=64), gcc-native-fma (-ffp-contract=fast),
                clang14, clang14-native, clang14-v3, clang19, clang19-native, clang19-v3

  python3 study/gap/arms.py list                 every arm and whether it can be built here
  python3 study/gap/arms.py build ARM...         build what the arms need (into build/gap/)
  python3 study/gap/arms.py cmd ARM SERIES [N]   print the command line that runs ARM N times on SERIES
Everything is built under build/gap/ (git-ignored); nothing in peers/ is modified.
"""
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build", "gap")
PY = sys.executable

C_KERNELS = ["naive", "unchecked", "prealloc", "x_wfloat", "x_wu64", "x_unroll8", "x_checked_unroll8",
             "x_prefixnan", "x_recip"]
RUST_IMPLS = ["rust_safe", "rust_unchecked"]
DARWIN = platform.system() == "Darwin"
X86 = platform.machine() in ("x86_64", "AMD64", "amd64")

NOBREAK = ("-mtune-ctrl=^sse_partial_reg_dependency,^sse_partial_reg_fp_converts_dependency,"
           "^sse_partial_reg_converts_dependency")
NATIVE = "-mcpu=native" if not X86 else "-march=native"

# C builds: compiler, extra flags (after the project's own: -O3 -DNDEBUG -ffp-contract=off).
C_BUILDS = {
    "gcc": ("gcc", []),
    "gcc-native": ("gcc", [NATIVE]),
    "gcc-v3": ("gcc", ["-march=x86-64-v3"]),
    "gcc-nobreak": ("gcc", [NOBREAK]),
    "gcc-align64": ("gcc", ["-falign-loops=64"]),
    "gcc-native-fma": ("gcc", [NATIVE, "-ffp-contract=fast"]),
    "clang14": ("clang-14", []),
    "clang14-native": ("clang-14", [NATIVE]),
    "clang14-v3": ("clang-14", ["-march=x86-64-v3"]),
    "clang19": ("clang-19", []),
    "clang19-native": ("clang-19", [NATIVE]),
    "clang19-v3": ("clang-19", ["-march=x86-64-v3"]),
    # macOS: Apple clang is the only C compiler most M2 owners have.
    "clang": ("clang", []),
    "clang-native": ("clang", [NATIVE]),
}
RUST_BUILDS = {
    "base": (None, ""),
    "native": (None, "-C target-cpu=native"),
    "v3": (None, "-C target-cpu=x86-64-v3"),
    "i64": ("i64", ""),
    "i64-native": ("i64", "-C target-cpu=native"),
    "i64-v3": ("i64", "-C target-cpu=x86-64-v3"),
}
NUMBA_BUILDS = {"host": {}, "generic": {"NUMBA_CPU_NAME": "generic"}, "v3": {"NUMBA_CPU_NAME": "x86-64-v3"}}

# The one-line patch of the i64 builds: the exact text in the peer's wma() and its replacement.
I64_FROM = "* (j + 1) as f64;"
I64_TO = "* (j as i64 + 1) as f64;"

# For the single-file tools (asm.py, retarget.py); the C arm itself builds through CMake (build_c).
C_BASE_FLAGS = ["-O3", "-DNDEBUG", "-ffp-contract=off", "-Iinclude", "-Isrc/spec", "-Isrc/data", "-Isrc/api",
                "-Isrc/variants", "-Isrc/simd"]


def c_kernel_source(kernel):
    """A C kernel's file, relative to ROOT: a variant's in src/variants/, an instrument's (x_*) in
    study/gap/instruments/."""
    for d in ("src/variants", "study/gap/instruments"):
        if os.path.exists(os.path.join(ROOT, d, kernel + ".c")):
            return os.path.join(d, kernel + ".c")
    raise ValueError("no C source for kernel %r in src/variants/ or study/gap/instruments/" % kernel)


def split(arm):
    impl, _, build = arm.partition("@")
    if not build:
        build = "host" if impl == "numba" else "base" if impl in RUST_IMPLS else ("clang" if DARWIN else "gcc")
    return impl, build


def kind(arm):
    impl, build = split(arm)
    if impl == "numba":
        if build not in NUMBA_BUILDS:
            raise ValueError("unknown numba build %r" % build)
        return "numba"
    if impl in RUST_IMPLS:
        if build not in RUST_BUILDS:
            raise ValueError("unknown rust build %r" % build)
        return "rust"
    if impl in C_KERNELS:
        if build not in C_BUILDS:
            raise ValueError("unknown C build %r" % build)
        return "c"
    raise ValueError("unknown implementation %r in arm %r" % (impl, arm))


def canonical(arm):
    impl, build = split(arm)
    kind(arm)
    return "%s@%s" % (impl, build)


def label(arm):
    """Short display name: the default build is left off."""
    impl, build = split(arm)
    default = split(impl)[1]
    return impl if build == default else "%s@%s" % (impl, build)


def avx512(arm):
    """Does the arm's code need AVX-512 (so valgrind 3.19 cannot run it)?"""
    impl, build = split(arm)
    if not X86:
        return False
    host_has = "avx512f" in open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else False
    native = build in ("host",) if impl == "numba" else "native" in build
    return native and host_has


def valgrind_proxy(arm):
    """The arm valgrind counts instead: the same code built for x86-64-v3 when the arm needs AVX-512."""
    if not avx512(arm):
        return canonical(arm)
    impl, build = split(arm)
    if impl == "numba":
        return "numba@v3"
    if impl in RUST_IMPLS:
        return "%s@%s" % (impl, build.replace("native", "v3"))
    comp = build.split("-")[0]
    if build.endswith("native-fma"):
        return None
    return "%s@%s-v3" % (impl, comp)


def have(tool):
    return shutil.which(tool) is not None


def buildable(arm):
    k = kind(arm)
    impl, build = split(arm)
    if k == "numba":
        return True, ""
    if k == "rust":
        return (have("cargo"), "cargo not found")
    cc, flags = C_BUILDS[build]
    if not have(cc):
        return False, "%s not found" % cc
    if DARWIN and cc == "gcc":
        return False, "gcc on macOS is Apple clang (use the clang builds)"
    if any(f.startswith("-mtune-ctrl") for f in flags) and (DARWIN or cc != "gcc"):
        return False, "-mtune-ctrl is gcc-only"
    if any("x86-64" in f for f in flags) and not X86:
        return False, "x86-only build"
    return True, ""


def run(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run(cmd, **kw)


# ---- builds ---------------------------------------------------------------------------------------
def c_binary(build):
    return os.path.join(BUILD, "c", build, "portbench")


def build_c(build, log=sys.stderr):
    """The C arm through the project's CMake: one build tree per arm (its compiler, its extra flags on
    every translation unit), target gap_portbench, whose kernel list CMake takes from the registry.
    (The hand-written compile command this replaced broke twice: hs_fail, then include/.)"""
    cc, flags = C_BUILDS[build]
    out = c_binary(build)
    tree = os.path.join(BUILD, "c", build, "cmake")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    configure = ["cmake", "-S", ROOT, "-B", tree, "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_C_COMPILER=" + cc,
                 "-DHS_EXTRA_FLAGS=" + " ".join(flags), "-DBUILD_TESTING=OFF"]
    compile_ = ["cmake", "--build", tree, "-j", str(os.cpu_count() or 2), "--target", "gap_portbench"]
    for cmd in (configure, compile_):
        print("arms: build C %-15s %s" % (build, " ".join(shlex.quote(c) for c in cmd)), file=log)
        run(cmd, cwd=ROOT)
    shutil.copy2(os.path.join(tree, "study", "gap_portbench"), out)
    with open(out + ".cmd", "w") as f:
        f.write(" ".join(shlex.quote(c) for c in configure) + " && " + " ".join(shlex.quote(c) for c in compile_) + "\n")
    return out


def rust_src(patch):
    """The crate to build: the peer itself, or a patched copy under build/gap/rust-src-<patch>/."""
    peer = os.path.join(ROOT, "peers", "rust")
    if patch is None:
        return peer
    dst = os.path.join(BUILD, "rust-src-" + patch)
    wanted = {}
    for dirpath, _, files in os.walk(peer):
        rel = os.path.relpath(dirpath, peer)
        if rel.split(os.sep)[0] in ("target",):
            continue
        for name in files:
            if rel == "." and name not in ("Cargo.toml", "Cargo.lock", "build.rs"):
                continue
            wanted[os.path.normpath(os.path.join(rel, name))] = open(os.path.join(dirpath, name), "rb").read()
    lib = os.path.join("src", "lib.rs")
    text = wanted[lib].decode()
    if text.count(I64_FROM) != 1:
        raise RuntimeError("i64 patch: expected exactly one %r in peers/rust/src/lib.rs, found %d"
                           % (I64_FROM, text.count(I64_FROM)))
    wanted[lib] = text.replace(I64_FROM, I64_TO).encode()
    # Rewrite only what changed, so cargo's incremental build stays valid.
    for rel, data in wanted.items():
        path = os.path.join(dst, rel)
        if os.path.exists(path) and open(path, "rb").read() == data:
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "wb").write(data)
    return dst


def rust_target(build):
    return os.path.join(BUILD, "rust", build)


def build_rust(build, log=sys.stderr, emit=False):
    patch, flags = RUST_BUILDS[build]
    src = rust_src(patch)
    env = dict(os.environ, CARGO_TARGET_DIR=rust_target(build), RUSTFLAGS=flags)
    print("arms: build Rust %-11s RUSTFLAGS=%r cargo build --release  (in %s)"
          % (build, flags, os.path.relpath(src, ROOT)), file=log)
    run(["cargo", "build", "--release", "--offline", "--quiet"], cwd=src, env=env)
    if emit:
        emit_rust(build)
    return rust_target(build)


def emit_rust(build):
    """The library's asm and LLVM IR as rustc generates them for this build (cargo rustc --emit)."""
    patch, flags = RUST_BUILDS[build]
    src = rust_src(patch) if patch else os.path.join(ROOT, "peers", "rust")
    tdir = rust_target(build) + "-emit"
    env = dict(os.environ, CARGO_TARGET_DIR=tdir, RUSTFLAGS=flags)
    run(["cargo", "rustc", "--release", "--offline", "--quiet", "--lib", "--", "--emit", "asm,llvm-ir"],
        cwd=src, env=env)
    deps = os.path.join(tdir, "release", "deps")
    newest = {}
    for f in os.listdir(deps):
        for ext in (".s", ".ll"):
            if f.startswith("hma_rust_peer") and f.endswith(ext):
                p = os.path.join(deps, f)
                if ext not in newest or os.path.getmtime(p) > os.path.getmtime(newest[ext]):
                    newest[ext] = p
    return newest.get(".s"), newest.get(".ll")


def build(arms, log=sys.stderr):
    """Build what the arms need; returns the arms that are ready to run (a failed build is reported and
    its arms left out, so one compiler missing a flag does not stop a run)."""
    done, failed, ready = set(), set(), []
    for arm in arms:
        k = kind(arm)
        impl, b = split(arm)
        key = (k, b)
        if k != "numba" and key not in done and key not in failed:
            ok, why = buildable(arm)
            if not ok:
                print("arms: skip %s (%s)" % (arm, why), file=log)
                failed.add(key)
            else:
                try:
                    build_c(b, log) if k == "c" else build_rust(b, log)
                    done.add(key)
                except (subprocess.CalledProcessError, RuntimeError, OSError) as e:
                    print("arms: build of %s failed: %s" % (arm, e), file=log)
                    failed.add(key)
        if k == "numba" or key in done:
            ready.append(arm)
    return ready


# ---- running --------------------------------------------------------------------------------------
def command(arm, series, repeat=1, out=None):
    """(argv, env): run ARM `repeat` times on SERIES.  The JSON goes to `out` when the program writes a
    file (numba, Rust), to stdout otherwise (C)."""
    k = kind(arm)
    impl, b = split(arm)
    env = dict(os.environ)
    if k == "numba":
        env.update(NUMBA_BUILDS[b])
        env.setdefault("NUMBA_NUM_THREADS", "1")
        # The peer's module, driven as its CLI drives it, timed with wall and CPU clocks (numba_time.py).
        argv = [PY, os.path.join(ROOT, "study", "gap", "numba_time.py"), "--input", series, "--repeat", str(repeat)]
        if out:
            argv += ["--output", out]
        return argv, env
    if k == "rust":
        argv = [os.path.join(rust_target(b), "release", impl), "--input", series, "--repeat", str(repeat)]
        if out:
            argv += ["--output", out]
        return argv, env
    return [c_binary(b), impl, series, str(repeat)], env


def run_arm(arm, series, repeat=1, tmp=None):
    """Run ARM; returns its JSON document (seconds, seconds_all, combos) plus rusage of the child."""
    import resource
    import tempfile
    tmp = tmp or tempfile.mkdtemp(prefix="gaparm")
    out = os.path.join(tmp, "out.json")
    if os.path.exists(out):
        os.remove(out)
    argv, env = command(arm, series, repeat, out)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (arm, p.returncode, p.stderr.strip()[-2000:]))
    doc = json.load(open(out)) if kind(arm) != "c" else json.loads(p.stdout)
    doc["arm"] = canonical(arm)
    if "cpu_seconds" not in doc:  # Rust, C: the whole process's CPU time (the sweep + a few ms of start-up)
        doc["cpu_seconds"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    doc["rusage"] = {"utime": r1.ru_utime - r0.ru_utime, "stime": r1.ru_stime - r0.ru_stime,
                     "minflt": r1.ru_minflt - r0.ru_minflt, "majflt": r1.ru_majflt - r0.ru_majflt}
    return doc


def all_arms():
    arms = ["numba@%s" % b for b in NUMBA_BUILDS]
    arms += ["%s@%s" % (i, b) for i in RUST_IMPLS for b in RUST_BUILDS]
    arms += ["%s@%s" % (k, b) for k in C_KERNELS for b in C_BUILDS]
    return arms


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    what = argv[1]
    if what == "list":
        for arm in all_arms():
            ok, why = buildable(arm)
            print("%-32s %s%s" % (arm, "ok" if ok else "no: " + why,
                                  "" if not avx512(arm) else "  (AVX-512; valgrind counts %s)" % valgrind_proxy(arm)))
        return 0
    if what == "build":
        build([canonical(a) for a in argv[2:]])
        return 0
    if what == "cmd":
        if len(argv) < 4:
            print("usage: arms.py cmd ARM SERIES [N]", file=sys.stderr)
            return 2
        a, env = command(argv[2], os.path.abspath(argv[3]), int(argv[4]) if len(argv) > 4 else 1)
        extra = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items() if os.environ.get(k) != v)
        print(("env " + extra + " " if extra else "") + " ".join(shlex.quote(x) for x in a))
        return 0
    print("arms.py: unknown command %r (list, build, cmd)" % what, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
