"""_core's error paths release what they hold exactly once.

- _sweep_many's bad inputs raise naming the problem, and 100 failed calls leave every argument's reference
  count as it was (one release too many or too few would move it);
- a closes list that an element's conversion empties (its __array__) is swept as it was given: the list's
  items were borrowed, and the emptied list freed the item in use (a crash before);
- under CPython's allocation-failure hook (_testcapi.set_nomemory), each allocation of _sweep_many and of
  _derive fails in turn, the result tuple's among them: each call either raises MemoryError or returns the
  right bits.  The result tuple's failure released the arrays twice (a crash before).
The last two run in a child interpreter, so that a crash fails one test instead of ending pytest."""
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from hmasweep import _core

W = np.array([[3, 6, 2, 9, 2, 3], [10, 3, 7, 2, 9, 4]], dtype=np.int64)


def close(k=0.0):
    return np.linspace(100.0, 110.0, 300) + k


@pytest.mark.parametrize("closes, windows, kind, says", [
    ([close(), np.ones((3, 3))], W, ValueError, "close must be a 1-D series of prices, got a 2-D array"),
    ([close(), "abc"], W, ValueError, "could not convert string to float"),
    (object(), W, TypeError, "closes must be a sequence of 1-D float64 series"),  # not 5: other threads move an int's count
    ([close()], W[:, :5], ValueError, "windows must have shape (n, 6)"),
    ([close()], W + 0.5, ValueError, "windows must be integers, got dtype float"),
])
def test_sweep_many_bad_input_is_named_and_released_once(closes, windows, kind, says):
    held = [closes, windows] + (list(closes) if isinstance(closes, list) else [])
    before = [sys.getrefcount(o) for o in held]
    for _ in range(100):
        with pytest.raises(kind, match=re.escape(says)):
            _core._sweep_many(closes, windows)
    assert [sys.getrefcount(o) for o in held] == before


def run_child(code):
    """Run `code` in a fresh interpreter (PYTHONPATH as ours: ctest_driver.py sets it); its stdout."""
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, f"child exit {p.returncode} (negative: killed by that signal): {p.stderr[-3000:]}"
    return p.stdout


def test_sweep_many_closes_emptied_while_converted():
    out = run_child("""
        import numpy as np
        from hmasweep import _core
        closes = []
        class Empties:  # converting it empties the list it is in
            def __array__(self, dtype=None, copy=None):
                closes.clear()
                return np.linspace(100.0, 110.0, 300)
        closes[:] = [Empties()] + [np.linspace(100.0, 110.0, 300) + k for k in range(1, 50)]
        given = list(closes)
        w = np.array([[3, 6, 2, 9, 2, 3]], dtype=np.int64)
        pnl, trades, errors, stats = _core._sweep_many(closes, w)
        alone, _, _, _ = _core._sweep_many([np.asarray(given[0])] + given[1:], w)
        print(pnl.shape, errors.count(None), pnl.tobytes() == alone.tobytes())
    """)
    assert out.split("\n")[0] == "(50, 1) 50 True", out


NOMEM = """
    import sys
    import numpy as np
    try:
        import _testcapi
    except ImportError:
        print("no _testcapi")
        sys.exit(0)
    from hmasweep import _core
    closes = [np.linspace(100.0, 110.0, 300), np.linspace(110.0, 100.0, 300)]
    w = np.array([[3, 6, 2, 9, 2, 3], [10, 3, 7, 2, 9, 4]], dtype=np.int64)
    pnl, trades, errors, stats = _core._sweep_many(closes, w)
    calls = {
        "_sweep_many": (lambda: _core._sweep_many(closes, w), lambda r: r[0].tobytes() + r[1].tobytes()),
        "_derive": (lambda: _core._derive(pnl, trades, stats, 300), lambda r: b"".join(c.tobytes() for c in r)),
    }
    call, bits = calls[sys.argv[1]]
    want = bits(call())
    # The result tuple (4 or 6 items) comes from CPython's free list when it can: hold that list's
    # tuples, and every result, so that the result tuple is a real allocation, one of those that fail.
    hold = [tuple(range(n)) for n in (4, 6) for _ in range(5000)]
    kept, failed, wrong = [], [], 0
    for k in range(100):
        _testcapi.set_nomemory(k, k + 1)  # only the k-th allocation from here on fails
        try:
            kept.append(call())
        except MemoryError:
            failed.append(k)
        finally:
            _testcapi.remove_mem_hooks()
        junk = [np.empty(k % 7 + 1) for _ in range(200)]  # reuse what was freed: a double release shows
    wrong = sum(bits(r) != want for r in kept)
    print(len(failed), len(kept), wrong)
"""


@pytest.mark.parametrize("call", ["_sweep_many", "_derive"])
def test_every_allocation_failing_in_turn(call):
    out = run_child(NOMEM.replace("sys.argv[1]", repr(call)))
    if out.startswith("no _testcapi"):
        pytest.skip("testcapi: this Python has no _testcapi module (CPython's test extension)")
    failed, kept, wrong = map(int, out.split())
    assert failed > 0 and kept > 0 and wrong == 0, out
