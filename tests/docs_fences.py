#!/usr/bin/env python3
"""ctest `docs_fences`: every fenced block of README.md and docs/*.md either runs in CI or says it does not.

usage: docs_fences.py SOURCE_DIR

- ```python blocks run (ctest docs_python_examples against the build, docs_fresh_venv in a fresh venv
  after the README's install line); this check only counts them.
- ```text blocks are output, usage text or a layout: nothing to run.
- Any other language (c, sh, cmake, ...) is a command or a code fragment CI does not run as written: the
  line just before its fence must be the comment `<!-- doc-test: not run (REASON) -->`, REASON saying why
  or what runs in its place.
- A fence with no language fails: a reader cannot tell output from an example.
Exit 0, or 1 listing every block that breaks a rule (document:line).
"""
import pathlib
import re
import sys

NOT_RUN = re.compile(r"^\s*<!--\s*doc-test:\s*not run\s*\((.+)\)\s*-->\s*$")


def fenced_blocks(text):
    """(line number of the opening fence, language, the line before it) for every fenced block."""
    lines, blocks, inside = text.splitlines(), [], False
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if not s.startswith("```"):
            continue
        if not inside:
            blocks.append((no, s[3:].strip(), lines[no - 2] if no > 1 else ""))
        inside = not inside
    if inside:
        raise SystemExit("unterminated fence at line %d (or a line that starts with ``` inside a paragraph)"
                         % blocks[-1][0])
    return blocks


def main():
    source_dir = pathlib.Path(sys.argv[1]).resolve()
    names = ["README.md"] + sorted("docs/" + p.name for p in (source_dir / "docs").glob("*.md"))
    problems, counts = [], {}
    for name in names:
        try:
            blocks = fenced_blocks((source_dir / name).read_text(encoding="utf-8"))
        except SystemExit as e:
            problems.append("%s: %s" % (name, e))
            continue
        for no, lang, before in blocks:
            where = "%s:%d" % (name, no)
            if lang in ("python", "text"):
                kind = lang
            elif not lang:
                problems.append("%s: a fence with no language (```text for output, or the code's language)" % where)
                continue
            elif NOT_RUN.match(before):
                kind = "not run"
            else:
                problems.append("%s: a ```%s block that CI does not run needs `<!-- doc-test: not run (REASON) -->` "
                                "on the line before its fence" % (where, lang))
                continue
            counts[kind] = counts.get(kind, 0) + 1
    for p in problems:
        print("FAIL " + p)
    print("docs_fences: %d documents; %s; %d problems" % (
        len(names), ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
