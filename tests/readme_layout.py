#!/usr/bin/env python3
"""The README's "Layout" table against the tree (issue 30 §5): one line per folder, every line true.

The folders are the top-level folders that hold tracked files (`git ls-files`; exit 77 where it fails), with src/ counted as its
sub-folders (each layer of the library has its own line).  A folder with no line fails, and so does a
line that names a folder the tree does not have (a line may also name a deeper folder, e.g. cli/server/,
when it exists).  The table's first column names its folders in backticks, each ending in '/'.

Usage: readme_layout.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys


def table_folders(readme):
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"^## Layout\n(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        sys.exit(f"{readme}: no '## Layout' section")
    lines = {}
    for row in m.group(1).splitlines():
        cells = row.split("|")
        if len(cells) < 3 or not cells[1].strip().startswith("`"):
            continue
        for name in re.findall(r"`([^`]+)`", cells[1]):
            lines[name.rstrip("/")] = row[:80]
    return lines


def tree_folders(src):
    try:
        files = subprocess.run(["git", "-C", src, "ls-files"], check=True, capture_output=True,
                               text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        # an sdist (no git, and some folders left out: pyproject.toml sdist.exclude): nothing to compare
        print(f"SKIP: {src} is not a git checkout (git ls-files failed)")
        sys.exit(77)
    folders = set()
    for f in files:
        parts = f.split("/")
        if len(parts) < 2:
            continue
        if parts[0] == "src" and len(parts) >= 3:
            folders.add("src/" + parts[1])
        elif parts[0] != "src":
            folders.add(parts[0])
    return {d for d in folders if os.path.isdir(os.path.join(src, d))}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: readme_layout.py SOURCE_DIR")
    src = sys.argv[1]
    lines, folders = table_folders(os.path.join(src, "README.md")), tree_folders(src)
    problems = [f"folder {d}/ has no line in README.md's Layout table" for d in sorted(folders - set(lines))]
    problems += [f"README.md's Layout line names {d}/, which is not a folder of the tree: {lines[d]!r}"
                 for d in sorted(lines) if not os.path.isdir(os.path.join(src, d))]
    problems += [f"README.md's Layout line names src/, not its layers (one line each): {lines[d]!r}"
                 for d in sorted(lines) if d == "src"]
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print(f"OK: {len(lines)} lines, {len(folders)} folders, each folder its line and each line a folder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
