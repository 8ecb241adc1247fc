#!/usr/bin/env bash
# In-process A/B of two versions of src/variants/segments.c (thread CPU time, 1 thread, the default series and
# grid, arms alternating, min and median of REPS; results checked equal between the arms).
#   bash study/segments/ab_kernel.sh ISA(avx2|avx512) OLD_SOURCE_TREE [NEW_SOURCE_TREE] [BARS] [REPS] [THREADS]
# e.g. an old tree: mkdir /tmp/old && git archive main | tar -x -C /tmp/old.  Needs build/release (libhmasweep.a).
# BFLAGS="-DSEG_GROUP=2" compiles the new arm with extra definitions, AFLAGS the old one.  BPATCH / APATCH: a
# patch (patch -p1, from a tree's root) applied to a copy of that arm's tree first, so an instrumented build
# needs no switch in the product's files: the cost of the statistics (reports/stats.md) is
# APATCH=study/segments/no_stats.patch with both arms this tree.  The trees must have the same sweep-kernel
# signature (this file's ab_kernel.c).  Built in $TMPDIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); W=$(cd "$here/../.." && pwd)
isa=$1; A=$2; B=${3:-$W}; bars=${4:-150000}; reps=${5:-30}; threads=${6:-1}
# The ISA's flags from this tree's src/simd/isa.def (its one list).
fl=$(sed -n "s/.*HS_ISA(k, *$isa, *[A-Z0-9]*, *[a-z0-9_]*, *\"\([^\"]*\)\".*/\1/p" "$W/src/simd/isa.def")
case $isa in avx2|avx512) ;; *) echo "ab_kernel.sh: ISA must be avx2 or avx512" >&2; exit 2;; esac
out=$(mktemp -d)
common="-DHS_HAVE_OPENMP=1 -O3 -DNDEBUG -ffp-contract=off -fopenmp -std=c11 $fl"
# A tree's include flags and kernel file: the layered tree (src/*), or one from before the move (kernels/ ...).
tree_flags() { if [[ -d $1/src/variants ]]; then echo "-I$1/include $(printf -- "-I$1/src/%s " spec data api variants simd)"
               else echo "-I$1/include -I$1/kernels -I$1/variants -I$1/simd"; fi; }
tree_kernel() { if [[ -d $1/src/variants ]]; then echo "$1/src/variants/segments.c"; else echo "$1/variants/segments.c"; fi; }
# A tree with src/simd/isa.def picks its vector header by HS_ISA_NAME and names its copy by HS_ISA_SUFFIX;
# an older one picks it by HS_TU_<ISA> and names the copy by HS_ISA_NAME.
isa_defs() { if [[ -f $1/src/simd/isa.def ]]; then echo "-DHS_ISA_NAME=$isa -DHS_ISA_SUFFIX=ab$2"
             else echo "-DHS_TU_${isa^^}=1 -DHS_ISA_NAME=ab$2"; fi; }
# The tree an arm builds: the one given, or a copy of its src/ and include/ with the arm's patch applied.
patched() { local tree=$1 arm=$2 p=$3
  if [[ -z $p ]]; then echo "$tree"; return; fi
  mkdir -p "$out/tree_$arm" && cp -r "$tree/src" "$tree/include" "$out/tree_$arm/"
  patch -s -p1 -d "$out/tree_$arm" <"$p" >&2 || { echo "ab_kernel.sh: $p does not apply to $tree (arm $arm)" >&2; return 2; }
  echo "$out/tree_$arm"
}
A=$(patched "$A" A "${APATCH:+$(realpath "$APATCH")}"); B=$(patched "$B" B "${BPATCH:+$(realpath "$BPATCH")}")
for arm in A B; do src=$([ $arm = A ] && echo "$A" || echo "$B")
  cc $common $([ $arm = B ] && echo ${BFLAGS:-} || echo ${AFLAGS:-}) $(isa_defs "$src" $arm) $(tree_flags "$src") \
     -c "$(tree_kernel "$src")" -o $out/seg_$arm.o
done
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L $(tree_flags "$W") $here/ab_kernel.c \
   $out/seg_A.o $out/seg_B.o $W/build/release/libhmasweep.a -lsleef -fopenmp -lm -o $out/ab
"$out/ab" "$bars" "$reps" "$threads"
