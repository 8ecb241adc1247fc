#!/usr/bin/env python3
"""Heaviest leaf frames of an `xctrace export` time-profile table: `xctrace_top.py table.xml`.

The export references repeated values by id (`<frame ref="12"/>`), so ids are resolved first; each
<row> is one sample whose backtrace's first frame is the leaf."""
import collections
import sys
import xml.etree.ElementTree as ET


def main():
    root = ET.parse(sys.argv[1]).getroot()
    by_id = {}
    for el in root.iter():
        if "id" in el.attrib:
            by_id[el.attrib["id"]] = el
    counts = collections.Counter()
    total = 0
    for row in root.iter("row"):
        bt = row.find("backtrace")
        if bt is not None and "ref" in bt.attrib:
            bt = by_id.get(bt.attrib["ref"])
        if bt is None:
            continue
        frame = bt.find("frame")
        if frame is not None and "ref" in frame.attrib:
            frame = by_id.get(frame.attrib["ref"])
        name = frame.attrib.get("name", "?") if frame is not None else "?"
        counts[name] += 1
        total += 1
    for name, n in counts.most_common(25):
        print("%6.2f%%  %6d  %s" % (100.0 * n / max(total, 1), n, name))


if __name__ == "__main__":
    main()
