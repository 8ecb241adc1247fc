"""Time the architectures in lanes: one worker process per lane, each pinned with its servers to its own
vCPU, so two sweeps run at once on this 2-vCPU box.

Why: one round of the default sweep is ~15 multi-second sweeps (~3.2 s of CPU each, ~50 s a round), so
10 interleaved rounds one after the other cannot fit the issue's 10-minute regeneration budget.  Two
lanes halve that.  What it costs in accuracy was measured before adopting it: two `hmasweep run
--variant unchecked` at once, one per vCPU, used 3.2-3.6 s of CPU each against 3.1-3.6 s alone (the two
vCPUs do not share a core's pipeline), and every boundary in a lane stays on one vCPU (client and
server pinned together), so no wake-up crosses vCPUs.  Each sample records its vCPU and each
architecture alternates lanes from round to round, so the report can show the two vCPUs agree.

The parent sends an architecture's name, the lane runs one sweep and answers (seconds, pnl, trades) or
an error; the parent gates the results.  A lane that loses its parent (EOF on the pipe) stops its
servers and exits.
"""
import os
import time
import multiprocessing as mp
from multiprocessing.connection import wait

import arch


def time_one(a):
    """One sweep of architecture `a`: (seconds, pnl, trades).  The C client times itself."""
    if hasattr(a, "run_timed"):
        secs, p, t = a.run_timed(1)
        return secs[0], p, t
    t0 = time.perf_counter()
    p, t = a.run()
    return time.perf_counter() - t0, p, t


def _start_all(archs):
    """Start every available architecture; returns {name: None (live) or why it cannot run}."""
    state = {}
    for a in archs:
        why = a.missing()
        if not why:
            try:
                a.start()
            except Exception as e:  # a server that cannot start is reported, the others still run
                why = f"could not start: {e}"
        state[a.name] = why
    return state


def _lane(conn, place, build, close, windows, tmp, fast):
    """Worker body: pin the client to place[0], start every architecture with its servers on place[1],
    serve run requests."""
    client_cpu, cpu = place
    os.sched_setaffinity(0, {client_cpu})
    lane_tmp = os.path.join(tmp, f"lane_c{client_cpu}_s{cpu}")  # own socket paths and logs (unique_path counts per process)
    os.makedirs(lane_tmp, exist_ok=True)
    os.symlink(os.path.join(tmp, "series.f64"), os.path.join(lane_tmp, "series.f64"))
    env = arch.Env(build, close, windows, cpu, lane_tmp)
    archs = {a.name: a for a in arch.architectures(env, fast)}
    live = []
    try:
        state = _start_all(archs.values())
        live = [archs[n] for n, why in state.items() if why is None]
        conn.send(state)
        while True:
            try:
                name = conn.recv()
            except EOFError:
                break
            if name is None:
                break
            try:
                dt, p, t = time_one(archs[name])
                conn.send(("ok", dt, [float(x) for x in p], [int(x) for x in t]))
            except Exception as e:
                conn.send(("error", str(e)))
    finally:
        for a in live:
            try:
                a.stop()
            except Exception:
                pass


class Lanes:
    """The lane workers, one per (client vCPU, server vCPU) pair in `places`."""

    def __init__(self, places, build, close, windows, tmp, fast):
        ctx = mp.get_context("fork")
        self.places, self.pipes, self.procs = list(places), [], []
        for place in self.places:
            mine, theirs = ctx.Pipe()
            p = ctx.Process(target=_lane, args=(theirs, place, build, close, windows, tmp, fast), daemon=True)
            p.start()
            theirs.close()
            self.pipes.append(mine)
            self.procs.append(p)
        # every lane must agree on what can run; a lane that cannot start an architecture removes it
        states = [c.recv() for c in self.pipes]
        self.missing = {}
        for st in states:
            for name, why in st.items():
                if why and name not in self.missing:
                    self.missing[name] = why
        self.names = list(states[0])

    def run_round(self, order, r, on_result):
        """Run every name in `order` once; name j of the report order goes to lane (j + r) % lanes, so an
        architecture alternates vCPUs round by round.  on_result(name, (client vCPU, server vCPU), reply) per sweep."""
        todo = [[] for _ in self.places]
        for name in order:
            todo[(self.names.index(name) + r) % len(self.places)].append(name)
        busy = {}
        for k, q in enumerate(todo):
            if q:
                busy[self.pipes[k]] = (k, q.pop(0))
                self.pipes[k].send(busy[self.pipes[k]][1])
        while busy:
            for c in wait(list(busy)):
                k, name = busy.pop(c)
                on_result(name, self.places[k], c.recv())
                if todo[k]:
                    busy[c] = (k, todo[k].pop(0))
                    c.send(busy[c][1])

    def close(self):
        for c in self.pipes:
            try:
                c.send(None)
            except (OSError, BrokenPipeError):
                pass
        for p in self.procs:
            p.join(timeout=30)
            if p.is_alive():
                p.terminate()
                p.join()
