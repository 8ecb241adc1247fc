"""Issue 20 items 7 and 12 on the Python side: thread counts the library refuses instead of crashing the
interpreter; what ran (variant, ISA, threads) recorded in results and in the CLI's JSON; plot(span=...)
validated; `hmasweep run | head` ends quietly."""
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import hmasweep


def _python(code):
    """Run `code` in a fresh interpreter on this package: a crash there (libgomp on 100,000 threads)
    fails the test instead of killing pytest."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("threads", [100000, 2**31 - 1])
def test_threads_beyond_the_maximum_are_refused(threads):
    code = (
        "import hmasweep, numpy as np\n"
        "c = hmasweep.series(bars=2000)\n"
        "for call in (lambda: hmasweep.sweep(c, [6, 9], threads=%d),\n"
        "             lambda: hmasweep.sweep(c, [6, 9], variant='simd_wma_omp', threads=%d),\n"
        "             lambda: hmasweep.sweep_many({'a': c, 'b': c}, [6, 9], threads=%d)):\n"
        "    try:\n"
        "        call()\n"
        "        print('no error')\n"
        "    except (ValueError, OverflowError) as e:\n"
        "        print('refused:', e)\n" % (threads, threads, threads))
    p = _python(code)
    assert p.returncode == 0, (p.returncode, p.stderr[-800:])
    lines = p.stdout.splitlines()
    assert len(lines) == 3 and all(l.startswith("refused:") for l in lines), p.stdout
    assert all("above the maximum, 1024" in l or "out of range" in l for l in lines), p.stdout


def test_result_records_what_ran():
    """r.variant is the variant that ran ("best" resolved), r.isa and r.threads what it ran with (named
    fields outside the 5-tuple, which keeps unpacking as before)."""
    close = hmasweep.series(bars=3000)
    listed = {v["name"] for v in hmasweep.variants()}
    r = hmasweep.sweep(close, [6, 20])
    assert r.variant != "best" and r.isa in ("scalar", "sse2", "avx2", "avx512", "neon") and r.threads >= 1
    assert len(tuple(r)) == 5
    r1 = hmasweep.sweep(close, [6, 20], variant="simd_wma_omp", isa="scalar", threads=1)
    assert (r1.variant, r1.isa, r1.threads) == ("simd_wma_omp", "scalar", 1)
    r2 = hmasweep.sweep(close, [6, 20], variant="unchecked", threads=2)
    assert (r2.variant, r2.isa, r2.threads) == ("unchecked", "scalar", 1)  # serial: one thread ran
    assert r.variant in listed


def test_plot_span_is_validated():
    close = hmasweep.series(bars=500)
    for span, needle in (((0, 500), "outside the series"), ((-1, 10), "outside the series"),
                         ((20, 10), "outside the series"), ((0.5, 10), "integer"), (7, r"\(first_bar, last_bar\)")):
        with pytest.raises(ValueError, match=needle):
            hmasweep.plot(close, [6, 20], span=span)


def test_cli_json_records_the_variant_that_ran(cli):
    out = subprocess.run([cli, "run", "--bars", "3000", "--lengths", "6,20", "--format", "json"], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    j = json.loads(out)
    assert j["requested"] == "best" and j["variant"] not in ("best", "") and j["isa"] and j["threads"] >= 1
    r = hmasweep.sweep(hmasweep.series(bars=3000), [6, 20])
    assert j["variant"] == r.variant and j["isa"] == r.isa


def test_cli_broken_pipe_is_quiet(cli):
    """`hmasweep run | head -1`: the reader goes away; the CLI ends as Unix tools do (SIGPIPE, no message),
    not with "cannot write the output" and exit 1.  1.2 MB of CSV: far more than a pipe buffers."""
    p = subprocess.Popen([cli, "run", "--bars", "3000", "--grid", "6:2000:20000", "--format", "csv"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.readline().startswith(b"combo,")
    p.stdout.close()
    err = p.stderr.read()
    p.stderr.close()
    assert p.wait(timeout=120) == -signal.SIGPIPE and err == b"", (p.returncode, err)
