"""`python -m hmasweep` and the `hmasweep` console script run the CLI shipped in the package (issue 28 item 3,
docs/python.md "The command line"): the same output and exit status as the built CLI (HS_CLI), which is an
independent way to run the same command."""
import os
import subprocess
import sys

import hmasweep
import hmasweep.__main__ as front


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_the_package_ships_a_cli():
    path = front.cli_path()
    assert path is not None, "no CLI in %s/bin" % os.path.dirname(hmasweep.__file__)
    assert os.access(path, os.X_OK)


def test_python_m_hmasweep_runs_the_cli_commands(cli):
    args = ["run", "--bars", "3000", "--lengths", "6,38,120", "--format", "csv"]
    ours, theirs = run([sys.executable, "-m", "hmasweep"] + args), run([cli] + args)
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
    assert ours.stdout.splitlines()[0].startswith("combo,")
    assert len(ours.stdout.splitlines()) == 4
    variants = run([sys.executable, "-m", "hmasweep", "variants"])
    assert variants.returncode == 0 and "segments_omp" in variants.stdout


def test_python_m_hmasweep_keeps_the_cli_exit_status_and_message(cli):
    bad = run([sys.executable, "-m", "hmasweep", "run", "--lengths", "1"])
    assert bad.returncode == 2, bad
    assert bad.stderr == run([cli, "run", "--lengths", "1"]).stderr
    assert bad.stderr.strip()


def test_python_m_hmasweep_without_arguments_prints_the_cli_usage():
    out = run([sys.executable, "-m", "hmasweep"])
    assert "usage: hmasweep <command>" in out.stdout + out.stderr
    for command in ("run", "variants", "gen", "trades", "serve", "report"):
        assert "  %s " % command in out.stdout + out.stderr


def test_console_script_entry_point_is_declared():
    """The wheel's metadata names hmasweep.__main__:console as the `hmasweep` command (an installed
    package only; the build tree has no metadata: then the pyproject.toml line is read instead)."""
    import importlib.metadata as md
    import pathlib

    try:
        eps = [e for e in md.entry_points(group="console_scripts") if e.name == "hmasweep"]
    except Exception:  # pragma: no cover - very old importlib.metadata
        eps = []
    if eps:
        assert eps[0].value == "hmasweep.__main__:console"
    else:
        root = pathlib.Path(os.environ.get("HS_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
        assert 'hmasweep = "hmasweep.__main__:console"' in (root / "pyproject.toml").read_text()
    assert callable(front.console)
