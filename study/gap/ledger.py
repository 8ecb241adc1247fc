"""The hypotheses of the numba-vs-Rust gap study: each an A/B that changes one thing.

A and B are study/gap/arms.py arms timed in the same interleaved rounds; the ratio reported is B/A (per
round, then the median), so a ratio below 1 means the change (A -> B) made the sweep faster.
`side` says where the factor is toggled: in the peer itself, or in the C port as an instrument.
`differs` says whether numba and the Rust port differ in this factor on this machine (established from
the extracted loops, reports/gap/asm/): a factor both sides share cannot explain the gap between them,
whatever it costs.
"""

# Each hypothesis: id, title, what differs between numba and Rust (evidence), and its A/B tests.
HYPOTHESES = [
    {"id": "H1", "title": "bounds checks (Rust safe indexing)",
     "differs": "yes: rust_safe checks every x[i] (cmp + branch to the panic per element); numba compiles "
                "with boundscheck off",
     "tests": [
         ("peer", "rust_safe@i64", "rust_unchecked@i64", "remove the checks (both builds convert the weight "
          "from a signed integer, so only the checks change)"),
         ("peer", "rust_safe@native", "rust_unchecked@native", "remove the checks, host target"),
         ("peer", "rust_safe", "rust_unchecked", "the study's A/B: remove the checks (confounded with H5a)"),
         ("C", "naive", "unchecked", "remove the checks in the C port (gcc)"),
         ("C", "naive@clang19", "unchecked@clang19", "remove the checks in the C port (clang 19)"),
         ("C", "x_checked_unroll8", "x_unroll8", "remove the checks with the loop unrolled x8 either way"),
     ]},
    {"id": "H6", "title": "loop unrolling (numba's LLVM unrolls the WMA loop x8; a bounds-checked loop is "
                          "not unrolled)",
     "differs": "yes: numba x8, rust_unchecked x4, rust_safe x1",
     "tests": [
         ("C", "unchecked", "x_unroll8", "unroll the inner loop x8 (gcc)"),
         ("C", "naive", "x_checked_unroll8", "unroll the bounds-checked loop x8 (gcc)"),
     ]},
    {"id": "H5a", "title": "unsigned (usize) weight conversion: `(j + 1) as f64` with no range proof",
     "differs": "yes: rust_unchecked converts a u64 (baseline x86-64 has no u64->f64 instruction: LLVM "
                "emits punpckldq/subpd/unpckhpd/addsd); numba converts an int64 (one cvtsi2sd); the "
                "bounds checks of rust_safe prove j < len, so its uitofp is `nneg` and becomes cvtsi2sd",
     "tests": [
         ("peer", "rust_unchecked", "rust_unchecked@i64", "convert from i64 instead of usize (one-line patch)"),
         ("peer", "rust_unchecked@native", "rust_unchecked@i64-native", "the same at host target "
          "(AVX-512 has vcvtusi2sd: one instruction either way)"),
         ("C", "x_wu64@clang19", "unchecked@clang19", "u64 -> i64 conversion in the C port, LLVM's expansion"),
         ("C", "x_wu64@clang14", "unchecked@clang14", "the same with clang 14"),
         ("C", "x_wu64", "unchecked", "the same with gcc (a sign test and branch instead)"),
     ]},
    {"id": "H5b", "title": "the int->float conversion of the weight inside the loop at all",
     "differs": "no: both numba and Rust convert (j + 1) in the loop",
     "tests": [("C", "unchecked", "x_wfloat", "keep the weight as a running f64 counter (gcc)")]},
    {"id": "H5c", "title": "cvtsi2sd's false dependency (writes only the low lane; without a zeroing xor "
                           "it waits for the register's previous value)",
     "differs": "no: rustc (xorps) and gcc (pxor) break it, numba's VEX form reads a register the loop "
                "never writes",
     "tests": [("C", "unchecked@gcc-nobreak", "unchecked", "add the zeroing pxor back (gcc; A is built "
                "with -mtune-ctrl=^sse_partial_reg_dependency,...)")]},
    {"id": "H4", "title": "target CPU (numba compiles for the host, rustc for the x86-64 baseline)",
     "differs": "yes, but it only matters through H5a here",
     "tests": [
         ("peer", "rust_unchecked", "rust_unchecked@native", "-C target-cpu=native"),
         ("peer", "rust_safe", "rust_safe@native", "-C target-cpu=native"),
         ("peer", "rust_unchecked@i64", "rust_unchecked@i64-native", "-C target-cpu=native, signed conversion"),
         ("peer", "numba@generic", "numba", "numba for the host instead of generic x86-64 (NUMBA_CPU_NAME)"),
         ("C", "unchecked", "unchecked@gcc-native", "-march=native (gcc: vectorises the products, adds stay "
          "in order)"),
         ("C", "unchecked@clang19", "unchecked@clang19-native", "-march=native (clang 19)"),
     ]},
    {"id": "H2", "title": "per-call allocation of the nine n-length buffers",
     "differs": "no: numba (NRT -> malloc) and Rust (Vec -> malloc) both allocate per call from glibc",
     "tests": [("C", "unchecked", "prealloc", "allocate once per sweep, reuse")]},
    {"id": "H3", "title": "NaN-filling whole output buffers (np.full / vec![NAN; n])",
     "differs": "no for the seven WMA outputs (both fill n); Rust also NaN-fills its two diff arrays that "
                "numba leaves empty (np.empty): 2 of 9 fills, bounded by 2/7 of this effect",
     "tests": [("C", "prealloc", "x_prefixnan", "fill only the w-1 NaN prefix")]},
    {"id": "H7", "title": "loop alignment",
     "differs": "no systematic difference: both align loop heads to 16 bytes (.p2align 4); where a loop then "
                "falls against 32/64-byte boundaries is layout luck in any binary (the size of that luck here is "
                "this A/B's effect)",
     "tests": [("C", "unchecked", "unchecked@gcc-align64", "-falign-loops=64")]},
    {"id": "H8", "title": "FMA contraction",
     "differs": "no: neither contracts (numba fastmath off, rustc never contracts); no vfmadd in either loop",
     "tests": [("C", "unchecked@gcc-native", "unchecked@gcc-native-fma", "-ffp-contract=fast (tier 1)")]},
    {"id": "H9", "title": "division vs reciprocal multiply",
     "differs": "no: both divide once per output",
     "tests": [("C", "unchecked", "x_recip", "multiply by 1/denom (signs certified)")]},
    {"id": "H10", "title": "compiler and LLVM version",
     "differs": "no here: numba's llvmlite and rustc use the same LLVM major (see Versions); on the M2 the "
                "study's numba 0.64 and rustc 1.94 may differ",
     "tests": [
         ("C", "unchecked", "unchecked@clang14", "gcc 12 -> clang 14"),
         ("C", "unchecked@clang14", "unchecked@clang19", "clang 14 -> clang 19 (LLVM 14 -> 19)"),
     ]},
]

# The attribution chains: gap(Rust build) = sum of steps + residual, each step a measured A -> B.
CHAINS = {
    "rust_unchecked": {"from": "rust_unchecked", "to": "numba",
                       "steps": [("H5a", "rust_unchecked", "rust_unchecked@i64")]},
    # rust_safe -> rust_unchecked@i64 also swaps the cast, but the safe build's cast is already signed in
    # machine code (LLVM proves j < len: `uitofp nneg` -> cvtsi2sd): rust_safe and rust_safe@i64 execute
    # the same instructions (valgrind counts them equal), so this step changes only the bounds checks.
    "rust_safe": {"from": "rust_safe", "to": "numba",
                  "steps": [("H1", "rust_safe", "rust_unchecked@i64")]},
}
# Controls: A/Bs that change the source but should not change the machine code.
CONTROLS = [("rust_safe", "rust_safe@i64", "the i64 patch on the safe build")]

# Extra arms timed for context (not in a test): the host-target ends of the chains.
CONTEXT = ["rust_unchecked@i64-native"]

QUICK_TESTS = {("peer", "rust_safe@i64", "rust_unchecked@i64"), ("peer", "rust_unchecked", "rust_unchecked@i64"),
               ("peer", "rust_safe", "rust_unchecked"), ("peer", "rust_unchecked", "rust_unchecked@native"),
               ("peer", "numba@generic", "numba"), ("C", "naive", "unchecked"), ("C", "unchecked", "x_unroll8"),
               ("C", "x_wu64@clang19", "unchecked@clang19"), ("C", "unchecked", "prealloc"),
               ("C", "unchecked@gcc-nobreak", "unchecked")}


def tests(quick=False):
    for h in HYPOTHESES:
        for t in h["tests"]:
            if quick and tuple(t[:3]) not in QUICK_TESTS:
                continue
            yield h, t


def arms_needed(quick=False):
    seen = []
    for _, (side, a, b, _) in tests(quick):
        for x in (a, b):
            if x not in seen:
                seen.append(x)
    for a, b, _ in CONTROLS:
        for x in (a, b):
            if x not in seen:
                seen.append(x)
    for c in CHAINS.values():
        for x in [c["from"], c["to"]] + [s[1] for s in c["steps"]] + [s[2] for s in c["steps"]]:
            if x not in seen:
                seen.append(x)
    if not quick:
        for x in CONTEXT:
            if x not in seen:
                seen.append(x)
    return seen
