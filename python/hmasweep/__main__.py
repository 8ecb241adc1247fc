"""The `hmasweep` command from the Python package: `python -m hmasweep ...`, and the `hmasweep` console
script that `pip install` puts on PATH, offer the C CLI's commands (run, variants, gen, trades, wire,
serve, report; docs/python.md "The command line").

- `report` runs here, in Python (hmasweep.report); the C CLI's `hmasweep report` runs this same code.
- Every other command runs the C CLI shipped in the package, <package>/bin/hmasweep (the wheel and
  `pip install .` put it there; a CMake build tree links it there too), with the same arguments, by exec:
  its output, exit status and Ctrl-C are the CLI's own.  HMASWEEP_PYTHON is set to this Python for the
  CLI's `report`, so a venv's CLI runs the venv's package.
"""
import argparse
import os
import sys

PROG = "hmasweep report"


class UsageError(ValueError):
    """A malformed option: exit status 2, as the C CLI's usage errors (a bad series or sweep: 1)."""


def _ints(text, what):
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise UsageError("%s '%s': expected comma-separated integers" % (what, text)) from None
    return values


def _pair(text, what, sep=":"):
    parts = text.split(sep)
    if len(parts) != 2:
        raise UsageError("%s '%s': expected A%sB" % (what, text, sep))
    return tuple(_ints(",".join(parts), what))


def _axis(hmasweep, text, what, grid_only=False):
    """A length list: LO:HI:COUNT (trunc(linspace), as --grid) or A,B,... (unless grid_only)."""
    if ":" in text or grid_only:
        parts = text.split(":")
        if len(parts) != 3:
            raise UsageError("%s '%s': expected LO:HI:COUNT" % (what, text))
        lo, hi, count = _ints(",".join(parts), what)
        return hmasweep.grid(lo, hi, count)
    return _ints(text, what)


def _parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Sweep a close series and write one self-contained interactive HTML page (plotly.js "
                    "inside, nothing fetched when it is viewed): the statistic over the grid, PnL and the "
                    "statistic against L, and the chosen combo's close with its entries and exits above its "
                    "equity.  hmasweep.report() in Python does the same (docs/python.md).")
    p.add_argument("--output", "-o", default="sweep.html", help="the page to write (default sweep.html; '-': stdout)")
    src = p.add_argument_group("the series (as `hmasweep run`)")
    src.add_argument("--input", help="read the close series: .f64/.bin/.raw, CSV (one column or 'close'), .npy")
    src.add_argument("--seed", type=int, default=42)
    src.add_argument("--bars", type=int, default=150000)
    src.add_argument("--vol", type=float, default=0.0008)
    src.add_argument("--start", type=float, default=100.0)
    grid = p.add_argument_group("the sweep")
    grid.add_argument("--grid", metavar="LO:HI:COUNT", help="lengths = trunc(linspace(LO, HI, COUNT)) (default 6:200:80)")
    grid.add_argument("--lengths", metavar="A,B,...", help="explicit lengths (each >= 2)")
    grid.add_argument("--hma-lengths", metavar="A,B,...|LO:HI:COUNT",
                      help="with --hma3-lengths: the 2-D grid (SPEC §8), every (HMA length, HMA3 length) pair")
    grid.add_argument("--hma3-lengths", metavar="C,D,...|LO:HI:COUNT")
    grid.add_argument("--fee", type=float, help="round-trip cost as a fraction (default 0.0009; SPEC §8)")
    grid.add_argument("--variant", default="best", help="registered variant (default best)")
    page = p.add_argument_group("the page")
    page.add_argument("--stat", help="the statistic the page opens on (default sharpe when the result has "
                                     "statistics, else pnl)")
    page.add_argument("--length", type=int, help="the combo shown with its trades (default: best by --stat)")
    page.add_argument("--combo-lengths", metavar="LH:L3", help="for a 2-D grid: the combo shown, as its two lengths")
    page.add_argument("--span", metavar="FIRST:LAST", help="the bars the combo figure shows (default all)")
    page.add_argument("--title", help="the page's title")
    val = p.add_argument_group("validation (docs/spec.md §9; names as `hmasweep run`)")
    val.add_argument("--periods", type=int, metavar="P",
                     help="sweep with P equal periods: the page gets the validation section (PBO, DSR, walk-forward)")
    val.add_argument("--groups", type=int, metavar="S", help="CSCV groups (default 16, or the largest even S <= P)")
    val.add_argument("--walk-forward", metavar="TRAIN:TEST[:anchored]",
                     help="walk-forward lengths in periods (default P/4:P/8, rolling)")
    val.add_argument("--periods-per-year", type=float, metavar="N", help="for the annualised Sharpe")
    return p


def _walk_forward(text):
    """TRAIN:TEST or TRAIN:TEST:anchored -> ((train, test), anchored)."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "anchored"):
        raise UsageError("--walk-forward '%s': expected TRAIN:TEST or TRAIN:TEST:anchored" % text)
    return _pair(":".join(parts[:2]), "--walk-forward"), len(parts) == 3


def report_main(argv):
    args = _parser().parse_args(argv)
    import hmasweep

    if args.input is not None:
        close = hmasweep.read_series(args.input)
    else:
        close = hmasweep.series(args.seed, args.bars, args.vol, args.start)
    two_d = (args.hma_lengths is not None, args.hma3_lengths is not None)
    if sum([args.grid is not None, args.lengths is not None, any(two_d)]) > 1:
        raise UsageError("give one of --grid, --lengths, or --hma-lengths with --hma3-lengths")
    if any(two_d) and not all(two_d):
        raise UsageError("the 2-D grid needs both --hma-lengths and --hma3-lengths")
    kw = {"variant": args.variant}
    if args.fee is not None:
        kw["fee"] = args.fee
    lengths = None
    if args.grid is not None:
        lengths = _axis(hmasweep, args.grid, "--grid", grid_only=True)
    elif args.lengths is not None:
        lengths = _ints(args.lengths, "--lengths")
    elif all(two_d):
        kw["hma"] = _axis(hmasweep, args.hma_lengths, "--hma-lengths")
        kw["hma3"] = _axis(hmasweep, args.hma3_lengths, "--hma3-lengths")
    needs_periods = [o for o, v in (("--groups", args.groups), ("--walk-forward", args.walk_forward),
                                    ("--periods-per-year", args.periods_per_year)) if v is not None]
    if args.periods is None and needs_periods:
        raise UsageError("%s needs --periods P" % needs_periods[0])
    if args.periods is not None:
        kw["periods"], kw["periods_per_year"] = args.periods, args.periods_per_year
    walk_forward, anchored = _walk_forward(args.walk_forward) if args.walk_forward is not None else (None, False)
    result = hmasweep.sweep(close, lengths, **kw)
    span = _pair(args.span, "--span") if args.span is not None else None
    length = args.length
    if result.lengths is None and length is not None:
        raise UsageError("a 2-D grid's combo is --combo-lengths LH:L3, not --length")
    if args.combo_lengths is not None:
        length = _pair(args.combo_lengths, "--combo-lengths")
    hmasweep.report(result, args.output, close=close, stat=args.stat, length=length, span=span,
                    title=args.title, groups=args.groups, walk_forward=walk_forward, anchored=anchored)
    if args.output != "-":  # "-": the page went to stdout, which must hold nothing else (issue 29 item 10)
        print("%s: wrote %s" % (PROG, args.output))
    return 0


def cli_path():
    """The C CLI shipped in the package: <package>/bin/hmasweep (None when this install has none)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "hmasweep")
    return path if os.access(path, os.X_OK) else None


def run_cli(argv):
    """exec the shipped C CLI with argv (returns only when it cannot: exit status 1 with the reason)."""
    path = cli_path()
    if path is None:
        sys.stderr.write("hmasweep: this install of the Python package has no CLI binary (%s/bin/hmasweep); "
                         "pip install the package (it ships the CLI), or run the CLI of a CMake build "
                         "(build/release/hmasweep; docs/python.md \"The command line\")\n"
                         % os.path.dirname(os.path.abspath(__file__)))
        return 1
    os.environ.setdefault("HMASWEEP_PYTHON", sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(path, [path] + list(argv))
    except OSError as e:
        sys.stderr.write("hmasweep: cannot run %s: %s\n" % (path, e))
        return 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] != "report":
        return run_cli(argv)
    try:
        return report_main(argv[1:])
    except UsageError as e:
        sys.stderr.write("%s: %s\n" % (PROG, e))
        return 2
    except (ValueError, OSError, ImportError) as e:  # bad input, an unreadable file, plotly missing
        sys.stderr.write("%s: %s\n" % (PROG, e))
        return 1


def console():
    """The `hmasweep` console script (pyproject.toml [project.scripts])."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
