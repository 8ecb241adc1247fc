"""Type hints for the C extension hmasweep._core (python/src/_core.c)."""

import os
from typing import Any, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
Lengths = Union[None, int, Sequence[int], npt.NDArray[np.integer[Any]]]

class SweepResult(NamedTuple):
    """One entry per combo in every array (a struct sequence: a tuple with named fields)."""

    pnl: npt.NDArray[np.float64]
    trades: npt.NDArray[np.int64]
    lengths: Optional[npt.NDArray[np.int64]]
    windows: npt.NDArray[np.int64]
    variant: str

def sweep(
    close: ArrayLike,
    lengths: Lengths = None,
    *,
    windows: Optional[ArrayLike] = None,
    variant: str = "best",
    isa: Optional[str] = None,
    threads: int = 0,
) -> SweepResult: ...
def series(seed: int = 42, bars: int = 150000, vol: float = 0.0008, start: float = 100.0) -> npt.NDArray[np.float64]: ...
def standard_normal(seed: int, n: int) -> npt.NDArray[np.float64]: ...
def grid(lo: int = 6, hi: int = 200, count: int = 80) -> npt.NDArray[np.int64]: ...
def windows(length: Union[int, Sequence[int], npt.NDArray[np.integer[Any]]]) -> npt.NDArray[np.int64]: ...
def variants() -> list[dict[str, Any]]: ...
def read_series(path: Union[str, bytes, os.PathLike[str]]) -> npt.NDArray[np.float64]: ...
def _trade_log(close: ArrayLike, windows: ArrayLike, out: np.ndarray) -> int: ...

TRADE_RECORD_SIZE: int
def _sweep_many(closes: Sequence[ArrayLike], windows: ArrayLike, variant: Optional[str] = ..., isa: Optional[str] = ...,
                threads: int = ...) -> Tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], list[Optional[str]]]: ...
