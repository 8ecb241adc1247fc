#!/usr/bin/env bash
# Across hosts: two network namespaces joined by a veth pair with added latency (tc netem) or, where the
# kernel lacks netem, a rate-limited link, one "host" per namespace.  mpirun runs in the first; Open MPI's remote launcher is
# netns_rsh.sh (ip netns exec) instead of ssh, so the second host's ranks really talk over the veth:
# the daemons' out-of-band channel and the ranks' TCP transport are restricted to the veth subnet.
# The rows must be byte-identical to the single-process run.  Needs root (ip netns); skips otherwise.
set -u
source "$(dirname "$0")/common.sh"
if [[ $(id -u) -ne 0 ]] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  hs_skip netns "needs root, ip and tc (iproute2)"
fi
tag=hs$$
nsA=${tag}a nsB=${tag}b
cleanup() { ip netns del "$nsA" 2>/dev/null; ip netns del "$nsB" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
ip netns add "$nsA" && ip netns add "$nsB" || hs_skip netns "cannot create network namespaces here"
ip link add "${tag}va" type veth peer name "${tag}vb" || hs_skip netns "cannot create a veth pair"
ip link set "${tag}va" netns "$nsA" && ip link set "${tag}vb" netns "$nsB"
# 10.x test-host addresses, private to these namespaces.
ip -n "$nsA" addr add 10.213.0.1/24 dev "${tag}va" && ip -n "$nsB" addr add 10.213.0.2/24 dev "${tag}vb"
for ns in "$nsA" "$nsB"; do ip -n "$ns" link set lo up; done
ip -n "$nsA" link set "${tag}va" up && ip -n "$nsB" link set "${tag}vb" up
# Latency with tc netem where the kernel has it; this project's VM kernel (6.18, no sch_netem) answers
# "qdisc kind is unknown", and then the link is shaped with tbf (1 Mbit/s) instead, so traffic still
# queues on a slow link.  Which one ran is printed.
link=""
if tc -n "$nsA" qdisc add dev "${tag}va" root netem delay 5ms 2>/dev/null; then
  tc -n "$nsB" qdisc add dev "${tag}vb" root netem delay 5ms && link="netem 5 ms each way"
elif tc -n "$nsA" qdisc add dev "${tag}va" root tbf rate 1mbit burst 32kbit latency 400ms; then
  tc -n "$nsB" qdisc add dev "${tag}vb" root tbf rate 1mbit burst 32kbit latency 400ms && link="tbf 1 Mbit/s (no netem in this kernel)"
fi
check '[[ -n "$link" ]]' "a shaped link between the namespaces"
echo "link between the namespaces: $link"
mkdir -p "$tmp/map"
echo "$nsA" > "$tmp/map/10.213.0.1"
echo "$nsB" > "$tmp/map/10.213.0.2"
export HS_NETNS_MAP=$tmp/map

make_universe "$tmp/u" 12 || { echo "FAIL: making the universe"; exit 1; }
grid=(--grid 6:60:8)
"$cli" run --inputs "$tmp/u" "${grid[@]}" --format csv > "$tmp/local.csv" 2>/dev/null
mca=(--mca plm_rsh_agent "$(dirname "$0")/netns_rsh.sh" --mca btl tcp,self --mca btl_tcp_if_include 10.213.0.0/24
     --mca oob_tcp_if_include 10.213.0.0/24 -x HS_NETNS_MAP -x OMP_NUM_THREADS)
ip netns exec "$nsA" timeout 120 "$mpirun" --oversubscribe "${mca[@]}" --host 10.213.0.1:1,10.213.0.2:2 -np 3 \
  "$mpi_cli" --inputs "$tmp/u" "${grid[@]}" --format csv > "$tmp/netns.csv" 2> "$tmp/netns.err"
rc=$?
check '[[ $rc -eq 1 ]]' "3 ranks over two namespaces: exit $rc (1 = broken files reported): $(tail -3 "$tmp/netns.err")"
check 'cmp -s "$tmp/local.csv" "$tmp/netns.csv"' "rows across the veth differ from the single-process run"
# --host A:1,B:2 puts rank 0 in the first namespace and ranks 1, 2 in the second: both must have worked.
check 'grep -Eq "15 symbols on 3 ranks.*per rank: 0 [1-9][0-9]* [1-9][0-9]*$" "$tmp/netns.err"' \
  "both ranks behind the veth computed symbols: $(grep hmasweep-mpi "$tmp/netns.err")"
finish
