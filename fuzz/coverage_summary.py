#!/usr/bin/env python3
"""Write reports/fuzz.md from a fuzz campaign's logs and an `llvm-cov export` of the corpus replay.

Called by fuzz/coverage.sh (which says how the inputs are made).  Per area of the code the fuzzers are
meant to reach (readers, frame codec, variants, option parsers) it gives line, branch and function
coverage, per file, and names what was never run: functions no input entered, and in the functions that
ran, the line ranges no input reached.  A text after the NOTES marker in an existing report is kept, so
hand-written findings survive a regeneration.
"""
import argparse
import csv
import datetime
import json
import os
import re

NOTES = "<!-- hand-written notes below this line: fuzz/coverage.sh keeps them -->"

# (area, what reaches it, path prefixes relative to the repository root)
AREAS = [
    ("readers", "fuzz_read_csv, fuzz_read_npy, fuzz_read_f64", ["src/data/readers.c", "src/data/csv.c", "src/data/npy.c"]),
    ("frame codec", "fuzz_codec", ["src/engine/codec.c"]),
    ("variants", "fuzz_diff", ["src/variants/", "study/gap/instruments/"]),
    ("option parsers", "fuzz_cli", ["cli/options.c", "cli/inputs_options.c", "src/spec/grid.c"]),
]
# File I/O in the readers' file: not a byte parser, so no fuzz target calls it (tests/test_hardening.c and
# tests/test_cli.sh do).  The readers' line figure is also given without these functions.
NOT_FUZZED = {"read_input", "open_output", "write_f64", "write_csv", "write_npy", "write_stdout", "write_stream", "store_le_f64",
              "hs_write_series", "hs_read_series", "hs_read_series_limited", "hs_series_format",
              "ends_with_ignoring_case"}
# ISA-specific code this CPU cannot run (no AVX-512 here, no NEON on x86): not a fuzzing gap.
NOT_HERE = re.compile(r"avx512|neon", re.I)


def area_of(rel):
    for name, _, prefixes in AREAS:
        if any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in prefixes):
            return name
    return None


def pct(covered, count):
    return f"{100.0 * covered / count:.1f}% ({covered}/{count})" if count else "-"


def ranges(lines):
    """[3,4,5,9] -> '3-5, 9'"""
    out, start, prev = [], None, None
    for n in sorted(set(lines)):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}-{prev}" if prev > start else str(start))
            start = prev = n
    if start is not None:
        out.append(f"{start}-{prev}" if prev > start else str(start))
    return ", ".join(out)


def load_coverage(path, root):
    data = json.load(open(path))["data"][0]
    files = {}
    for f in data["files"]:
        rel = os.path.relpath(f["filename"], root)
        if rel.startswith("..") or rel.startswith("fuzz/") or rel.startswith("build/"):
            continue
        files[rel] = f["summary"]
    # Functions: one record per instantiation (a variant source is compiled once per ISA); a function or
    # a region counts as run when any instantiation ran it.
    funcs, regions = {}, {}
    for fn in data["functions"]:
        rel = os.path.relpath(fn["filenames"][0], root)
        if rel not in files:
            continue
        own = [r for r in fn["regions"] if r[5] == 0 and r[7] == 0]  # code regions in the function's file
        if not own:
            continue
        first = min(r[0] for r in own)
        name = fn["name"].split(":")[-1]
        key = (rel, first)
        entry = funcs.setdefault(key, {"names": set(), "count": 0, "file": rel, "line": first, "lines": set()})
        entry["names"].add(name)
        entry["count"] += fn["count"]
        for r in own:
            entry["lines"].update(range(r[0], r[2] + 1))
        for r in own:
            rk = (rel, first, r[0], r[1], r[2], r[3])
            regions[rk] = regions.get(rk, 0) + r[4]
    return files, funcs, regions


def uncovered(funcs, regions, area_files):
    never, partial = [], []
    missed = {}
    for (rel, first, l0, _c0, l1, _c1), count in regions.items():
        if count == 0:
            missed.setdefault((rel, first), set()).update(range(l0, l1 + 1))
    for key, f in funcs.items():
        if f["file"] not in area_files:
            continue
        name = "/".join(sorted(f["names"]))
        where = f"{f['file']}:{f['line']}"
        if f["count"] == 0:
            never.append((where, name))
        elif key in missed:
            partial.append((len(missed[key]), where, name, ranges(missed[key])))
    partial.sort(key=lambda p: -p[0])
    return sorted(never), partial


def campaign_table(summary, logs):
    if not os.path.exists(summary):
        return ["No campaign log (build/fuzz/logs/summary.tsv): run `fuzz/run.sh long` first.", ""]
    rows = list(csv.DictReader(open(summary), delimiter="\t"))
    out = ["| target | seconds | wall s | executions | exec/s | edges (cov) | features (ft) | corpus files | "
           "crashes | sanitizer reports | mismatches |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total = 0
    for r in rows:
        text = ""
        log = os.path.join(logs, r["target"] + ".log")
        if os.path.exists(log):
            text = open(log, errors="replace").read()
        # "Test unit written to ...slow-unit-..." only reports the slowest input so far: not a failure.
        crashes = len(re.findall(r"==\d+== ERROR: libFuzzer|deadly signal|Test unit written to (?!\S*slow-unit)", text))
        sanitizer = len(re.findall(r"ERROR: (Address|Leak|Memory)Sanitizer|runtime error:", text))
        mismatches = text.count("MISMATCH")
        execs = int(r["executions"] or 0)
        total += execs
        out.append(f"| {r['target']} | {r['seconds']} | {r['wall_s']} | {execs:,} | {r['exec_per_s']} | {r['cov']} | "
                   f"{r['ft']} | {r['corpus_files']} | {crashes} | {sanitizer} | {mismatches} |")
    out.append(f"| **total** | | | **{total:,}** | | | | | | | |")
    return out + [""]


def main():
    ap = argparse.ArgumentParser()
    for a in ("root", "export", "replay", "summary", "command", "clang", "report"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--failed", default="0")
    a = ap.parse_args()
    files, funcs, regions = load_coverage(a.export, a.root)
    logs = os.path.dirname(a.summary)
    command = open(a.command).read().strip() if os.path.exists(a.command) else "(no campaign logged)"

    out = ["# Fuzzing campaign and coverage (issue 10)", "",
           "Regenerate (figures below come from exactly these commands, run from the repository root):", "",
           "```sh", command, "fuzz/run.sh coverage      # also run by `long` at its end", "```", "",
           f"Written {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC on {os.cpu_count()} vCPUs shared with other "
           f"engineers' builds and tests; {a.clang}.  The campaign runs one libFuzzer process at a time, one "
           "worker, at nice 19 (libFuzzer + ASan + UBSan on the targets and the whole library, cmake/fuzz.cmake).",
           ""]
    if a.failed != "0":
        out += ["**The campaign FAILED: see build/fuzz/artifacts and the logs in build/fuzz/logs.**", ""]
    out += ["## Campaign", ""] + campaign_table(a.summary, logs)

    out += ["## Coverage", "",
            "Source-based coverage (clang `-fprofile-instr-generate -fcoverage-mapping`, llvm-cov) of a replay of "
            "every corpus file — committed seeds plus what the campaign kept in build/fuzz/corpus — through the same "
            "targets built without sanitizers and without libFuzzer (fuzz/coverage.sh).  Branches are llvm-cov's "
            "branch conditions (each counts true and false).  Per area:", "",
            "| area | reached by | lines | branches | functions |", "|---|---|---:|---:|---:|"]
    per_area = {}
    for name, by, _ in AREAS:
        mine = sorted(f for f in files if area_of(f) == name)
        per_area[name] = mine
        s = {k: [sum(files[f][k]["covered"] for f in mine), sum(files[f][k]["count"] for f in mine)]
             for k in ("lines", "branches", "functions")}
        out.append(f"| {name} | {by} | {pct(*s['lines'])} | {pct(*s['branches'])} | {pct(*s['functions'])} |")
        io = [f for f in funcs.values() if f["file"] in mine and f["count"] == 0 and f["names"] & NOT_FUZZED]
        if io:
            io_lines = sum(len(f["lines"]) for f in io)
            covered, count = s["lines"]
            out.append(f"| {name}, without file I/O | {by} | ≈{pct(covered, count - io_lines)} | | "
                       f"{pct(s['functions'][0], s['functions'][1] - len(io))} |")
    out += ["", "\"Without file I/O\": the same, less the never-entered functions that read or write files "
            "(" + ", ".join(sorted(NOT_FUZZED)) + "), which are not byte parsers and are tested by tests/test_hardening.c "
            "and tests/test_cli.sh; their line count is taken from their coverage regions, hence ≈.  A `-` "
            "file holds no code of its own (a variant that instantiates src/variants/port.h).", "",
            "Per file:", "", "| file | lines | branches | functions |", "|---|---:|---:|---:|"]
    for name, _, _ in AREAS:
        for f in per_area[name]:
            s = files[f]
            out.append(f"| {f} | {pct(s['lines']['covered'], s['lines']['count'])} | "
                       f"{pct(s['branches']['covered'], s['branches']['count'])} | "
                       f"{pct(s['functions']['covered'], s['functions']['count'])} |")
    out.append("")

    replay = list(csv.DictReader(open(a.replay), delimiter="\t"))
    out += ["Replay: " + "; ".join(f"{r['target']} {r['inputs']} inputs {r['seconds']} s {r['status']}" for r in replay)
            + ".", ""]

    out += ["## What no input reached", "",
            "Functions never entered, then the largest unreached line ranges inside functions that ran (file:line "
            "of the function; the ranges are source lines).  ISA-specific code this CPU cannot run (AVX-512, NEON) "
            "is listed apart: it is not a gap of the fuzzers.", ""]
    for name, _, _ in AREAS:
        never, partial = uncovered(funcs, regions, set(per_area[name]))
        # Only when every instantiation is for an ISA not here: a function whose scalar copy never ran is a gap.
        isa = [n for n in never if all(NOT_HERE.search(part) for part in n[1].split("/"))]
        never = [n for n in never if n not in isa]
        out.append(f"### {name}")
        out.append("")
        out.append("- never entered: " + (", ".join(f"`{n}` ({w})" for w, n in never) if never else "none"))
        if isa:
            out.append(f"- not runnable on this CPU: {len(isa)} function(s) (" +
                       ", ".join(f"`{n}`" for _, n in isa[:6]) + (", ..." if len(isa) > 6 else "") + ")")
        for lines, where, fname, rng in partial[:10]:
            out.append(f"- `{fname}` ({where}): {lines} lines unreached: {rng}")
        if len(partial) > 10:
            out.append(f"- ... and {len(partial) - 10} more functions with smaller gaps")
        out.append("")

    notes = ""
    if os.path.exists(a.report):
        old = open(a.report).read()
        if NOTES in old:
            notes = old[old.index(NOTES):]
    with open(a.report, "w") as f:
        f.write("\n".join(out) + "\n" + (notes or NOTES + "\n"))


if __name__ == "__main__":
    main()
