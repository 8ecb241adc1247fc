#!/usr/bin/env python3
"""ctest `docs_python_examples`: every ```python block in README.md and docs/*.md runs as written.

usage: docs_python_examples.py SOURCE_DIR [BUILD_PYTHON_DIR]
  BUILD_PYTHON_DIR is put first on sys.path (the build tree's package); without it, the installed
  hmasweep is used.

How the blocks run:
- The blocks of one document run in order in one namespace, as a reader would type them into one
  session (docs/python.md's client block uses the `close` of the block before it).
- Each document runs in a fresh scratch directory (so `path="fig.png"` lands there), which holds
  `prices.csv`: the first 1,000 bars of the default series as one column, for the blocks that read one.
  matplotlib uses the Agg backend.
- A block whose first line is the comment `# doc-test: skip (REASON)` is not run (it needs a server or a
  file the scratch directory does not have); the reason is printed and counted.  Every other block must
  run without an exception.
- A line `print(...)  # TEXT` states its output: the block's printed lines must equal those TEXTs, in
  order (README's `print(r.trades[0], r.pnl[0])  # 57029 -5165.579954235863`).
- A file named by a `path="NAME"` argument must exist afterwards.
Exit 0 when all ran, 1 on the first failure (naming the document, block and line), 77 (skipped) only when
numpy or matplotlib is missing (tests/skip_policy.py: in CI, a failure).
"""
import contextlib
import importlib.util
import io
import os
import pathlib
import re
import sys
import tempfile
import traceback

SKIP_MARK = re.compile(r"#\s*doc-test:\s*skip\s*\((.+)\)")
STATED_OUTPUT = re.compile(r"^\s*print\(.*\)\s*#\s*(.+?)\s*$")
OUTPUT_FILE = re.compile(r"""\bpath\s*=\s*["']([^"']+)["']""")
REQUIRED = ("README.md", "docs/python.md")  # these must have blocks (else the test would check nothing)


def documents(source_dir):
    """README.md, then every docs/*.md that has a ```python block (and the REQUIRED ones regardless)."""
    names = ["README.md"] + sorted("docs/" + p.name for p in (source_dir / "docs").glob("*.md"))
    return [n for n in names if n in REQUIRED or "```python" in (source_dir / n).read_text(encoding="utf-8")]


def python_blocks(text):
    """(first line number, code) of every ```python fenced block."""
    blocks, code, start = [], None, 0
    for no, line in enumerate(text.splitlines(), 1):
        if code is None and line.strip() == "```python":
            code, start = [], no + 1
        elif code is not None and line.strip() == "```":
            blocks.append((start, "\n".join(code) + "\n"))
            code = None
        elif code is not None:
            code.append(line)
    if code is not None:
        raise SystemExit("unterminated ```python block at line %d" % start)
    return blocks


def run_document(source_dir, name):
    """Run one document's blocks; return (ran, skipped) or raise SystemExit naming the failure."""
    blocks = python_blocks((source_dir / name).read_text(encoding="utf-8"))
    if not blocks:
        raise SystemExit("%s: no ```python block found (the test would check nothing)" % name)
    ran = skipped = 0
    namespace = {"__name__": "__doc_example__"}
    with tempfile.TemporaryDirectory(prefix="hs_doc_examples_") as scratch:
        old_cwd = os.getcwd()
        os.chdir(scratch)
        try:
            import hmasweep
            import numpy as np

            np.savetxt("prices.csv", hmasweep.series()[:1000], fmt="%.17g", header="close", comments="")
            for line_no, code in blocks:
                where = "%s, block at line %d" % (name, line_no)
                mark = SKIP_MARK.search(code.splitlines()[0]) if code.strip() else None
                if mark:
                    print("SKIP %s: %s" % (where, mark.group(1)))
                    skipped += 1
                    continue
                out = io.StringIO()
                try:
                    with contextlib.redirect_stdout(out):
                        exec(compile(code, "<%s>" % where, "exec"), namespace)
                except Exception:
                    raise SystemExit("FAIL %s:\n%s" % (where, traceback.format_exc()))
                stated = [m.group(1) for m in map(STATED_OUTPUT.match, code.splitlines()) if m]
                printed = out.getvalue().splitlines()
                if stated and printed != stated:
                    raise SystemExit("FAIL %s: printed %r, the document says %r" % (where, printed, stated))
                for path in OUTPUT_FILE.findall(code):
                    if not os.path.isfile(path) or os.path.getsize(path) == 0:
                        raise SystemExit("FAIL %s: %s was not written" % (where, path))
                print("ok   %s (%d lines%s)" % (where, code.count("\n"),
                                                "; printed %s" % printed if printed else ""))
                ran += 1
        finally:
            os.chdir(old_cwd)
    return ran, skipped


def main():
    source_dir = pathlib.Path(sys.argv[1]).resolve()
    if len(sys.argv) > 2:
        sys.path.insert(0, str(pathlib.Path(sys.argv[2]).resolve()))
    missing = [m for m in ("numpy", "matplotlib") if importlib.util.find_spec(m) is None]
    if missing:  # Skipped, or in CI a failure: the skip policy (tests/skips.allow)
        import skip_policy  # next to this file

        skip_policy.skip(missing[0], "docs_python_examples needs %s (pip install numpy matplotlib)" % ", ".join(missing))
    import matplotlib

    matplotlib.use("Agg")
    total_ran = total_skipped = 0
    for name in documents(source_dir):
        ran, skipped = run_document(source_dir, name)
        total_ran += ran
        total_skipped += skipped
    print("docs_python_examples: %d blocks ran, %d marked skip" % (total_ran, total_skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
