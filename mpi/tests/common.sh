# Shared by the MPI tests: arguments, root permission for Open MPI, a universe with broken files.
mpi_cli=${1:?usage: $0 hmasweep-mpi hmasweep mpirun}
cli=${2:?}
mpirun=${3:-}
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/skip.sh"  # hs_skip: the skip policy (tests/skips.allow)
if [[ -z "$mpirun" || ! -x "$mpirun" ]]; then hs_skip mpi "mpirun not found (apt-get install openmpi-bin)"; fi
# Open MPI derives its prefix from its own path: /bin/mpirun (merged /usr) gives "/" and a fatal error.
mpirun=$(readlink -f "$mpirun")
# Open MPI refuses root unless told; CI runs as root in a throwaway machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMP_NUM_THREADS=1
# A job whose rank exits non-zero (every test here runs such jobs: a broken file in the universe, a refused
# checkpoint, HS_MPI_FAIL_AFTER) is torn down with SIGCONT, 1 s, SIGTERM, 1 s, SIGKILL (odls_base_sigkill_timeout):
# 2 s of sleep per run, while hmasweep-mpi has no signal handler to give that time to.  0: 2.35 -> 0.35 s a run,
# mpi_checkpoint 58 -> ~14 s (CI time, .ci/run).
export OMPI_MCA_odls_base_sigkill_timeout=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if eval "$1"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $2"; fi; }
finish() { [[ $fail -eq 0 ]] || tail -5 "$tmp"/*.err 2>/dev/null; echo "$(basename "$0"): $pass passed, $fail failed"; [[ $fail -eq 0 ]]; }

# make_universe DIR COUNT: COUNT series of different lengths in three formats, plus three broken files.
make_universe() {
  local dir=$1 count=$2 ext
  mkdir -p "$dir"
  for ((i = 1; i <= count; i++)); do
    case $((i % 3)) in 0) ext=f64 ;; 1) ext=csv ;; 2) ext=npy ;; esac
    "$cli" gen --output "$dir/sym$(printf %03d $i).$ext" --bars $((1500 + 397 * (i % 11))) --seed "$i" || return 1
  done
  printf 'close\n1\nnan\n' > "$dir/broken_nan.csv"
  : > "$dir/broken_empty.f64"
  "$cli" gen --output "$dir/broken_short.npy" --bars 40 --seed 9
}
