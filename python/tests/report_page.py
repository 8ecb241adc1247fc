"""Reading back what hmasweep.report() wrote: the figures' data as plotly.js receives it
(Plotly.newPlot's arguments in the page), so a test compares the page itself with the library."""
import base64
import json

import numpy as np

_DTYPES = {"f8": "<f8", "f4": "<f4", "i1": "i1", "u1": "u1", "i2": "<i2", "u2": "<u2", "i4": "<i4", "u4": "<u4",
           "i8": "<i8", "u8": "<u8"}


def figure(page, k):
    """(data, layout) of the page's figure k (1, 2 or 3), as the JSON Plotly.newPlot gets."""
    key = '"hs-figure-%d",' % k
    at = page.index(key, page.index("Plotly.newPlot")) + len(key)
    dec = json.JSONDecoder()
    rest = page[at:].lstrip()
    data, end = dec.raw_decode(rest)
    rest = rest[end:].lstrip()
    assert rest[0] == ","
    layout, _ = dec.raw_decode(rest[1:].lstrip())
    return data, layout


def values(v):
    """A trace's array: plotly's base64 form ({"dtype", "bdata", "shape"}) or a JSON list (None = NaN)."""
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=_DTYPES[v["dtype"]])
        if "shape" in v:
            a = a.reshape([int(s) for s in str(v["shape"]).split(",")])
        return a
    return np.array([np.nan if x is None else x for x in v] if v and not isinstance(v[0], list) else
                    [[np.nan if x is None else x for x in row] for row in v], dtype=np.float64)


def trace(data, name):
    hits = [t for t in data if t.get("name") == name]
    assert len(hits) == 1, "no single trace named %r: %s" % (name, [t.get("name") for t in data])
    return hits[0]
