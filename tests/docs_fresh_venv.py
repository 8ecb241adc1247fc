#!/usr/bin/env python3
"""ctest `docs_fresh_venv`: the README's install line, then every ```python block of the docs, as a new
user would run them: in a fresh venv that has nothing but what that line installs.

usage: docs_fresh_venv.py SOURCE_DIR VENV_DIR [--wheel WHEEL]

1. The install line is read from README.md itself (its one `pip install '.[EXTRAS]'` line), so the test
   cannot drift from the text.  It runs as written with the venv's pip, in SOURCE_DIR (pip builds the
   checkout with scikit-build-core; its build folder build/{wheel_tag} is kept, so a rerun is incremental).
   --wheel WHEEL installs WHEEL[EXTRAS] in place of "." (the same extras, read from the same line).
2. VENV_DIR is removed and made again with `python -m venv` (no system site-packages).
3. tests/docs_python_examples.py then runs with the venv's python and no build-tree path, from a scratch
   directory: every ```python block of README.md and docs/*.md, its stated outputs and written files.
4. The installed commands: `hmasweep run --bars 3000` and `python -m hmasweep run --bars 3000` (the CLI
   that pip installs, docs/python.md "The command line") must run and print their table.
Network: pip reaches PyPI (CI has it).  Without `venv` or PyPI the test is Skipped (in CI: fails, the
skip policy).  Prints each step with its time, and the examples' log.
"""
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import time

INSTALL_LINE = re.compile(r"^\s*(pip install '\.(\[[a-z,]+\])?')")


def readme_install_line(source_dir):
    """The README's `pip install '.[...]'` command (without its comment), as a word list."""
    found = [m.group(1) for m in map(INSTALL_LINE.match, (source_dir / "README.md").read_text().splitlines()) if m]
    if len(found) != 1:
        raise SystemExit("README.md: expected one `pip install '.[EXTRAS]'` line, found %d: %r" % (len(found), found))
    for doc in sorted((source_dir / "docs").glob("*.md")):  # the docs repeat it: the same line, or a drift
        for m in map(INSTALL_LINE.match, doc.read_text().splitlines()):
            if m and m.group(1) != found[0]:
                raise SystemExit("docs/%s: install line %r is not README.md's %r" % (doc.name, m.group(1), found[0]))
    return found[0], shlex.split(found[0])


def step(what, t0=[time.monotonic()]):
    print("--- [%6.1f s] %s" % (time.monotonic() - t0[0], what), flush=True)


def run(cmd, **kw):
    print("$ " + " ".join(shlex.quote(str(c)) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def main():
    args = sys.argv[1:]
    wheel = None
    if "--wheel" in args:
        i = args.index("--wheel")
        wheel = args[i + 1]
        del args[i:i + 2]
    source_dir, venv = pathlib.Path(args[0]).resolve(), pathlib.Path(args[1]).resolve()
    sys.path.insert(0, str(source_dir / "tests"))
    import skip_policy

    line, words = readme_install_line(source_dir)
    step("README.md's install line: %s" % line)
    if words[:2] != ["pip", "install"] or len(words) != 3:
        raise SystemExit("README.md's install line is not `pip install '.[EXTRAS]'`: %r" % line)
    target = words[2]
    if wheel is not None:
        target = str(pathlib.Path(wheel).resolve()) + target[1:]
    try:
        import venv as _venv  # noqa: F401  (Debian: python3-venv)
        import ensurepip  # noqa: F401
    except ImportError:
        skip_policy.skip("python-venv", "python3 -m venv is not available (apt-get install python3-venv)")
    step("fresh venv %s" % venv)
    shutil.rmtree(venv, ignore_errors=True)
    run([sys.executable, "-m", "venv", venv])
    py, pip = venv / "bin" / "python", [venv / "bin" / "python", "-m", "pip"]
    env = dict(os.environ)
    for var in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):  # nothing from the caller's environment
        env.pop(var, None)
    step("pip install %s (in %s)" % (target, source_dir))
    try:
        run(pip + ["install", "-q", target], cwd=source_dir, env=env)
    except subprocess.CalledProcessError as e:
        probe = subprocess.run(pip + ["download", "-q", "--no-deps", "-d", venv / "probe", "six"], env=env,
                               capture_output=True)
        if probe.returncode != 0:
            skip_policy.skip("pypi", "pip cannot reach PyPI: %s" % probe.stderr.decode()[-300:])
        raise SystemExit("FAIL: README.md's install line failed (exit %d)" % e.returncode)
    run(pip + ["list", "--format=freeze"], env=env)
    scratch = venv / "scratch"
    scratch.mkdir()
    where = subprocess.run([py, "-c", "import hmasweep; print(hmasweep.__file__)"], cwd=scratch, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    if not where.startswith(str(venv)):
        raise SystemExit("FAIL: imported hmasweep from %s, not the fresh venv %s" % (where, venv))
    step("every ```python block of README.md and docs/*.md, with the venv's python (hmasweep from %s)" % where)
    run([py, source_dir / "tests" / "docs_python_examples.py", source_dir], cwd=scratch, env=env)
    for cmd in ([venv / "bin" / "hmasweep"], [py, "-m", "hmasweep"]):
        step("the installed CLI: %s run --bars 3000" % " ".join(os.path.basename(str(c)) for c in cmd))
        if not os.path.exists(cmd[0]):
            raise SystemExit("FAIL: pip installed no %s" % cmd[0])
        out = subprocess.run(cmd + ["run", "--bars", "3000"], cwd=scratch, env=env,
                             capture_output=True, text=True)
        print(out.stdout + out.stderr, end="")
        if out.returncode != 0 or "combo" not in out.stdout:
            raise SystemExit("FAIL: %s run exited %d" % (cmd[-1], out.returncode))
    step("docs_fresh_venv: all ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
