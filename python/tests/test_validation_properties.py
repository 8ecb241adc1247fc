"""Properties of the validation library (docs/spec.md §9.5, §9.7) with Hypothesis, through ctypes:
- hs_cscv's decisions equal the oracle's on matrices made to defeat its bounds (ties, copies, one-ulp
  near-copies, constant returns, scales 1e-150 and 1e140);
- permuting the combos changes neither pbo nor the choices (they follow the permutation), on matrices
  without ties; with ties the chosen combos' metrics are unchanged;
- the walk-forward's stitched curve is the running sum of the chosen combos' period returns."""
import numpy as np
from hypothesis import given, settings, strategies as st

import validation_support as vs


@st.composite
def matrix_and_groups(draw, ties=False):
    seed = draw(st.integers(0, 2**32 - 1))
    S = draw(st.sampled_from([2, 4, 6, 8]))
    P = draw(st.integers(S, 40))
    N = draw(st.integers(1, 12))
    rng = np.random.default_rng(seed)
    E = vs.tied_equity(rng, P, max(N, 4)) if ties else vs.random_equity(rng, P, N)
    perm = rng.permutation(E.shape[1])
    return E, S, perm


@settings(max_examples=60, deadline=None)
@given(matrix_and_groups())
def test_permuting_combos_keeps_pbo_and_choices(case):
    E, S, perm = case
    a, b = vs.c_cscv(E, S), vs.c_cscv(E[:, perm], S)
    for f in ("kept", "pbo", "prob_oos_loss"):
        assert np.array_equal(a[f], b[f], equal_nan=True), f
    assert np.array_equal(a["lambdas"], b["lambdas"], equal_nan=True)
    kept = a["chosen"] != vs.SIZE_MAX
    assert np.array_equal(kept, b["chosen"] != vs.SIZE_MAX)
    assert np.array_equal(perm[b["chosen"][kept].astype(np.int64)], a["chosen"][kept].astype(np.int64))


@settings(max_examples=40, deadline=None)
@given(matrix_and_groups(ties=True))
def test_permuting_tied_combos_keeps_the_chosen_metrics(case):
    E, S, perm = case
    a, b = vs.c_cscv(E, S), vs.c_cscv(E[:, perm], S)
    assert a["kept"] == b["kept"]
    assert np.array_equal(a["is_metric"], b["is_metric"], equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(1, 9), st.integers(1, 12), st.integers(1, 6),
       st.booleans(), st.booleans())
def test_walk_forward_curve_is_the_chosen_returns_running_sum(seed, P, N, train, test, anchored, ties):
    rng = np.random.default_rng(seed)
    E = vs.tied_equity(rng, P, max(N, 4)) if ties else vs.random_equity(rng, P, N)
    if train + test > P:
        return
    got = vs.c_walk_forward(E, train, test, anchored)
    R = vs.returns_of(E)
    picked = np.concatenate([R[f * test + train:f * test + train + test, c] for f, c in enumerate(got["choices"])])
    assert got["folds"] == (P - train) // test
    assert np.array_equal(got["oos_curve"], np.cumsum(picked))  # cumsum adds left to right, from the first
    perm = rng.permutation(E.shape[1])
    if not ties and train >= 2:  # no ties (and a metric: train >= 2): the choices follow the permutation
        moved = vs.c_walk_forward(E[:, perm], train, test, anchored)
        assert [int(perm[c]) for c in moved["choices"]] == got["choices"]


@st.composite
def hard_matrix(draw):
    """Returns where hs_cscv's bounds cannot decide: values from a small set (exact ties), whole columns
    repeated, near-copies one ulp apart, constant columns (var 0 or a rounding residue), huge and tiny scales."""
    seed = draw(st.integers(0, 2**32 - 1))
    S = draw(st.sampled_from([2, 4, 6, 8]))
    P = draw(st.integers(S, 36))
    N = draw(st.integers(2, 14))
    rng = np.random.default_rng(seed)
    R = rng.integers(-2, 3, size=(P, N)).astype(np.float64) * draw(st.sampled_from([1.0, 0.1, 3.0, 1e-150, 1e140]))
    for c in range(1, N):
        roll = rng.integers(0, 4)
        if roll == 0:
            R[:, c] = R[:, c - 1]  # a copy
        elif roll == 1:
            R[:, c] = R[:, c - 1] * (1 + 2.0**-52)  # one ulp apart
        elif roll == 2:
            R[:, c] = R[0, c]  # constant returns
    return np.cumsum(R, axis=0), S


@settings(max_examples=80, deadline=None)
@given(hard_matrix())
def test_cscv_decisions_equal_the_oracle_on_hard_matrices(case):
    E, S = case
    if not np.isfinite(E).all():
        return
    got, want = vs.c_cscv(E, S), vs.o_cscv(E, S)
    assert got["kept"] == want["kept"]
    assert np.array_equal(got["chosen"], want["chosen"])
    assert np.array_equal(got["lambdas"], want["lambdas"], equal_nan=True)
    assert np.array_equal(got["pbo"], want["pbo"], equal_nan=True)
    assert np.array_equal(got["prob_oos_loss"], want["prob_oos_loss"], equal_nan=True)
