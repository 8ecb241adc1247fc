#!/usr/bin/env python3
"""ctest `docs_versions`: every version the docs and the front ends state is the project's.

usage: docs_versions.py SOURCE_DIR [CLI [BUILD_PYTHON_DIR]]

The sources (one each):
- the package and library version: include/hmasweep.h's HS_VERSION_MAJOR/MINOR/PATCH (CMakeLists.txt's
  project(VERSION), pyproject.toml's version and hs_version() are read from it);
- the kernel spec's version: the title of docs/spec.md ("... (vN)" or "... vN ...").
Checked against them, in README.md, docs/*.md, peers/README.md, python/hmasweep/*.py, cli/*.c and
pyproject.toml:
- `hmasweep-X.Y.Z` (a wheel's or sdist's name) and `hs_version()` ... "X.Y.Z": the package version;
- `kernel spec vN` and `spec (vN)`: the spec's version;
and, given CLI, `CLI --help` names "kernel spec vN" and the version, and (given BUILD_PYTHON_DIR)
`hmasweep.__version__` is the version.  Exit 0, or 1 listing every mismatch (file:line).
"""
import pathlib
import re
import subprocess
import sys

WHEEL_NAME = re.compile(r"\bhmasweep-(\d+\.\d+\.\d+)")
HS_VERSION_DOC = re.compile(r"hs_version\(\)[^\"\n]*\"(\d+\.\d+\.\d+)\"")
SPEC_MENTION = re.compile(r"\bkernel spec v(\d+)|\bspec \(v(\d+)\)")


def project_version(source_dir):
    header = (source_dir / "include" / "hmasweep.h").read_text()
    parts = [re.search(r"^#define HS_VERSION_%s (\d+)$" % p, header, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        raise SystemExit("include/hmasweep.h: HS_VERSION_MAJOR/MINOR/PATCH not found")
    return ".".join(m.group(1) for m in parts)


def spec_version(source_dir):
    title = (source_dir / "docs" / "spec.md").read_text().splitlines()[0]
    m = re.search(r"\bv(\d+)\b", title)
    if not m:
        raise SystemExit("docs/spec.md: its title %r names no version (vN)" % title)
    return m.group(1)


def files(source_dir):
    yield from [source_dir / "README.md", source_dir / "peers" / "README.md", source_dir / "pyproject.toml"]
    for pattern in ("docs/*.md", "python/hmasweep/*.py", "cli/*.c"):
        yield from sorted(source_dir.glob(pattern))


def main():
    source_dir = pathlib.Path(sys.argv[1]).resolve()
    version, spec = project_version(source_dir), spec_version(source_dir)
    problems, seen = [], 0
    for path in files(source_dir):
        if not path.exists():
            continue
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = "%s:%d" % (path.relative_to(source_dir), no)
            for m in list(WHEEL_NAME.finditer(line)) + list(HS_VERSION_DOC.finditer(line)):
                seen += 1
                if m.group(1) != version:
                    problems.append("%s: version %s, the project's is %s (include/hmasweep.h)" % (where, m.group(1), version))
            for m in SPEC_MENTION.finditer(line) if path.name != "spec.md" else ():  # spec.md tells its history
                seen += 1
                if (m.group(1) or m.group(2)) != spec:
                    problems.append("%s: %r, the spec is v%s (docs/spec.md's title)" % (where, m.group(0), spec))
    if len(sys.argv) > 2:
        out = subprocess.run([sys.argv[2], "--help"], capture_output=True, text=True).stdout
        for want in ("kernel spec v%s" % spec, version):
            seen += 1
            if want not in out:
                problems.append("%s --help: does not say %r:\n%s" % (sys.argv[2], want, out))
    if len(sys.argv) > 3:
        sys.path.insert(0, sys.argv[3])
        import hmasweep

        seen += 1
        if hmasweep.__version__ != version:
            problems.append("hmasweep.__version__ is %s, the project's %s" % (hmasweep.__version__, version))
    for p in problems:
        print("FAIL " + p)
    print("docs_versions: version %s, kernel spec v%s; %d mentions checked, %d wrong" % (version, spec, seen, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
