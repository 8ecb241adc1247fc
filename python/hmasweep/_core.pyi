"""Type hints for the C extension hmasweep._core (python/src/_core.c).  `python -m mypy.stubtest
hmasweep` checks them against the built module (ctest python_types)."""

import os
import sys
from _typeshed import structseq
from typing import Any, Callable, Final, Generic, Optional, Sequence, Tuple, Union, final, overload

import numpy as np
import numpy.typing as npt
from typing_extensions import Never, TypeVar

_ArrayLike = npt.ArrayLike
_Ints = Union[int, Sequence[int], npt.NDArray[np.integer[Any]]]
_Lengths = Optional[_Ints]
_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]

# Which fields a SweepResult has, as types (issue 28): each parameter is None where the field may be None,
# and Never where it is always there (Union[X, Never] is X).  Bare `SweepResult` is every field Optional
# (any result, a Client's included); hmasweep.sweep()'s overloads below say what an in-process sweep has.
_L = TypeVar("_L", covariant=True, default=None)  # lengths: Never for a sweep over lengths (1-D)
_G = TypeVar("_G", covariant=True, default=None)  # hma_lengths, hma3_lengths: Never for lengths or the 2-D grid
_S = TypeVar("_S", covariant=True, default=None)  # stats, the six arrays, bars, fee: Never in process
_P = TypeVar("_P", covariant=True, default=None)  # isa, threads: Never in process (a Client's result has neither)

@final
class SweepResult(structseq[Any], Tuple[_F64, _I64, Union[_I64, _L], _I64, str], Generic[_L, _G, _S, _P]):
    """A struct sequence (like os.stat_result), not a NamedTuple: a 5-tuple with named fields, plus isa
    and threads by name only.  It has no _asdict/_replace/_make."""

    if sys.version_info >= (3, 10):
        __match_args__: Final = ("pnl", "trades", "lengths", "windows", "variant")

    @property
    def pnl(self) -> _F64: ...
    @property
    def trades(self) -> _I64: ...
    @property
    def lengths(self) -> Union[_I64, _L]: ...
    @property
    def windows(self) -> _I64: ...
    @property
    def variant(self) -> str: ...
    @property
    def isa(self) -> Union[str, _P]: ...
    @property
    def threads(self) -> Union[int, _P]: ...
    @property
    def hma_lengths(self) -> Union[_I64, _G]: ...
    @property
    def hma3_lengths(self) -> Union[_I64, _G]: ...
    @property
    def bars(self) -> Union[int, _S]: ...
    @property
    def fee(self) -> Union[float, _S]: ...
    @property
    def stats(self) -> Union[npt.NDArray[np.void], _S]: ...
    @property
    def wins(self) -> Union[_I64, _S]: ...
    @property
    def gross_profit(self) -> Union[_F64, _S]: ...
    @property
    def gross_loss(self) -> Union[_F64, _S]: ...
    @property
    def sum_sq(self) -> Union[_F64, _S]: ...
    @property
    def max_drawdown(self) -> Union[_F64, _S]: ...
    @property
    def bars_held(self) -> Union[_I64, _S]: ...
    def to_frame(self) -> Any: ...

# What an in-process sweep returns, by its grid: over lengths (1-D), over raw windows, over the 2-D grid.
_LengthsResult = SweepResult[Never, Never, Never, Never]
_WindowsResult = SweepResult[None, None, Never, Never]
_GridResult = SweepResult[None, Never, Never, Never]

@overload
def sweep(
    close: _ArrayLike,
    lengths: _Lengths = None,
    *,
    windows: None = None,
    hma: None = None,
    hma3: None = None,
    fee: Optional[float] = None,
    variant: Optional[str] = "best",
    isa: Optional[str] = None,
    threads: int = 0,
) -> _LengthsResult: ...
@overload
def sweep(
    close: _ArrayLike,
    lengths: None = None,
    *,
    windows: _ArrayLike,
    hma: None = None,
    hma3: None = None,
    fee: Optional[float] = None,
    variant: Optional[str] = "best",
    isa: Optional[str] = None,
    threads: int = 0,
) -> _WindowsResult: ...
@overload
def sweep(
    close: _ArrayLike,
    lengths: None = None,
    *,
    windows: None = None,
    hma: _Ints,
    hma3: _Ints,
    fee: Optional[float] = None,
    variant: Optional[str] = "best",
    isa: Optional[str] = None,
    threads: int = 0,
) -> _GridResult: ...
@overload
def sweep(
    close: _ArrayLike,
    lengths: _Lengths = None,
    *,
    windows: Optional[_ArrayLike] = None,
    hma: _Lengths = None,
    hma3: _Lengths = None,
    fee: Optional[float] = None,
    variant: Optional[str] = "best",
    isa: Optional[str] = None,
    threads: int = 0,
) -> SweepResult[None, None, Never, Never]: ...
def series(seed: int = 42, bars: int = 150000, vol: float = 0.0008, start: float = 100.0) -> _F64: ...
def standard_normal(seed: int, n: int, /) -> _F64: ...
def grid(lo: int = 6, hi: int = 200, count: int = 80) -> _I64: ...
def windows(length: _Ints, /) -> _I64: ...
def variants() -> list[dict[str, Any]]: ...
def read_series(path: Union[str, bytes, os.PathLike[str], os.PathLike[bytes]], /) -> _F64: ...
def _trade_log(close: _ArrayLike, windows: _ArrayLike, out: np.ndarray, fee: Optional[float] = None, /) -> int: ...
def _derive(
    pnl: _ArrayLike, trades: _ArrayLike, stats: _ArrayLike, bars: int, /
) -> Tuple[_F64, _F64, _F64, _F64, _F64, _F64]: ...
def _indicator(kind: str, x: _ArrayLike, windows: _ArrayLike, /) -> _F64: ...
def _c_sweep_loop(close: _ArrayLike, windows: _ArrayLike, variant: Optional[str], reps: int, /) -> float: ...

TRADE_RECORD_SIZE: int
STATS_DTYPE: np.dtype[np.void]
DEFAULT_FEE: float
__version__: str

def _sweep_many(
    closes: Sequence[_ArrayLike], windows: _ArrayLike, variant: Optional[str] = None, isa: Optional[str] = None,
    threads: int = 0, progress: Optional[Callable[[int, int], object]] = None, fee: Optional[float] = None, /
) -> Tuple[_F64, _I64, list[Optional[str]], npt.NDArray[np.void]]: ...
def _set_interruptible(on: bool, /) -> bool: ...

@final
class _CClient:
    def __init__(self, url: Optional[str], timeout_ms: int = -1, fd: int = -1) -> None: ...
    def set_timeout(self, ms: int, /) -> None: ...
    def live_open(self, handle: int, windows: _ArrayLike, stats: bool = False, fee: Optional[float] = None, /) -> int: ...
    def live_append(self, session: int, bars: _ArrayLike, n_combos: int, stats: bool = False, /) -> Tuple[Any, ...]: ...
    def sweep_stats(
        self, close: Optional[_ArrayLike], handle: int, windows: _ArrayLike, fee: Optional[float], /
    ) -> Tuple[_F64, _I64, npt.NDArray[np.void]]: ...
    def live_close(self, session: int, /) -> None: ...
    def sweep(self, close: _ArrayLike, windows: _ArrayLike, /) -> Tuple[_F64, _I64]: ...
    def sweep_handle(self, handle: int, windows: _ArrayLike, /) -> Tuple[_F64, _I64]: ...
    def echo(self, close: _ArrayLike, out: _F64, /) -> _F64: ...
    def load(self, close: _ArrayLike, /) -> int: ...
    def free(self, handle: int, /) -> None: ...
    def hello(self, /) -> Tuple[int, str, int, int]: ...
    def auth(self, token: bytes, /) -> None: ...
    def last_error(self, /) -> int: ...
    def close(self, /) -> None: ...
