#!/usr/bin/env bash
# Open MPI's remote launcher for the netns test: instead of ssh to HOST, run the command inside the
# network namespace that owns HOST's address (mpi/tests/mpi_netns.sh makes them).
host=$1
shift
ns=$(cat "${HS_NETNS_MAP:?}/$host")
exec ip netns exec "$ns" sh -c "$*"
