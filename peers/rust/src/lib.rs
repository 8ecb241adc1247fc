//! The study's Rust port of the numba HMA/HMA3 stop-and-reverse kernel (docs/spec.md v1, tier 0).
//!
//! One kernel text, two indexing disciplines: `hma_kernel!` is expanded twice, once with safe
//! (bounds-checked) indexing into `mod safe` and once with `get_unchecked` indexing into
//! `mod unchecked` — the article's `rust_batch_unix` and `rust_batch_unchecked` kernels.  Everything
//! else is the numba peer transcribed line for line: a fresh `vec![f64::NAN; n]` per WMA call, one
//! accumulator summed in increasing j, each product rounded before the add (rustc never contracts
//! a*b+c into an FMA), division by w(w+1)/2, the same event loop and books.

pub mod cli;
pub mod server;

/// 0.09 % per round trip (docs/spec.md §4).
pub const FEE: f64 = 0.0009;

/// One combo's six windows, wire order (docs/spec.md §2): HMA half, full, smoothing; HMA3 third, half, full.
pub type Windows = [usize; 6];

/// Why a request cannot be run.
#[derive(Debug)]
pub enum Error {
    /// Bad data (exit 1): unreadable file, malformed size, NaN / non-positive price.
    Data(String),
    /// Bad request (exit 2): L < 2, a window of 0 or longer than the series, bad options.
    Usage(String),
}

/// Every price finite and > 0, and at least one bar.
pub fn check_series(x: &[f64]) -> Result<(), Error> {
    if x.is_empty() {
        return Err(Error::Data("the series is empty".into()));
    }
    if let Some(i) = x.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        let bad = x.iter().filter(|v| !(v.is_finite() && **v > 0.0)).count();
        return Err(Error::Data(format!(
            "price {} is {:?}: every price must be finite and > 0 ({} bad values)",
            i, x[i], bad
        )));
    }
    Ok(())
}

/// Every window >= 1 and <= the series length (the unchecked kernel relies on this).
pub fn check_windows(windows: &[Windows], n: usize) -> Result<(), Error> {
    for (k, w) in windows.iter().enumerate() {
        for &v in w.iter() {
            if v == 0 || v > n {
                return Err(Error::Usage(format!(
                    "combo {}: window {} is outside 1..={} (the series has {} bars)",
                    k, v, n, n
                )));
            }
        }
    }
    Ok(())
}

/// Python's round(): round half to even.
fn round_half_even(x: f64) -> f64 {
    x.round_ties_even()
}

/// The six windows of length L (docs/spec.md §2).
pub fn windows_from_length(length: i64) -> Result<Windows, Error> {
    if length < 2 {
        return Err(Error::Usage(format!("length {}: L must be >= 2", length)));
    }
    let l = length as f64;
    let p = round_half_even(l / 2.0);
    let w3 = round_half_even(p / 3.0).max(1.0);
    let w4 = round_half_even(p / 2.0).max(1.0);
    Ok([
        (length / 2) as usize,
        length as usize,
        l.sqrt().floor() as usize,
        w3 as usize,
        w4 as usize,
        p as usize,
    ])
}

/// numpy's linspace(lo, hi, count).astype(int): trunc(lo + i*step) for i < count-1, then hi.
pub fn default_grid() -> Vec<i64> {
    let (lo, hi, count) = (6.0f64, 200.0f64, 80usize);
    let step = (hi - lo) / (count - 1) as f64;
    let mut g: Vec<i64> = (0..count - 1).map(|i| (lo + i as f64 * step).trunc() as i64).collect();
    g.push(hi as i64);
    g
}

macro_rules! rd_safe {
    ($a:expr, $i:expr) => {
        $a[$i]
    };
}
macro_rules! wr_safe {
    ($a:expr, $i:expr, $v:expr) => {
        $a[$i] = $v
    };
}
macro_rules! rd_unchecked {
    ($a:expr, $i:expr) => {
        unsafe { *$a.get_unchecked($i) }
    };
}
macro_rules! wr_unchecked {
    ($a:expr, $i:expr, $v:expr) => {
        {
            let v = $v;
            unsafe { *$a.get_unchecked_mut($i) = v }
        }
    };
}

/// The kernel, written once.  `$rd!(slice, index)` reads, `$wr!(slice, index, value)` writes.
macro_rules! hma_kernel {
    ($rd:ident, $wr:ident) => {
        use super::{check_series, check_windows, Error, Windows};

        fn wma(x: &[f64], w: usize) -> Vec<f64> {
            let n = x.len();
            let mut out = vec![f64::NAN; n];
            let denom = (w * (w + 1)) as f64 / 2.0;
            for i in (w - 1)..n {
                let mut s = 0.0;
                for j in 0..w {
                    s += $rd!(x, i + 1 - w + j) * (j + 1) as f64;
                }
                $wr!(out, i, s / denom);
            }
            out
        }

        fn hma(close: &[f64], w0: usize, w1: usize, w2: usize) -> Vec<f64> {
            let a = wma(close, w0);
            let b = wma(close, w1);
            let n = close.len();
            let mut diff = vec![f64::NAN; n];
            for i in 0..n {
                $wr!(diff, i, 2.0 * $rd!(a, i) - $rd!(b, i));
            }
            wma(&diff, w2)
        }

        fn hma3(close: &[f64], w3: usize, w4: usize, w5: usize) -> Vec<f64> {
            let a = wma(close, w3);
            let b = wma(close, w4);
            let c = wma(close, w5);
            let n = close.len();
            let mut diff = vec![f64::NAN; n];
            for i in 0..n {
                $wr!(diff, i, 3.0 * $rd!(a, i) - $rd!(b, i) - $rd!(c, i));
            }
            wma(&diff, w5)
        }

        fn backtest(close: &[f64], w: &Windows, fee: f64) -> (f64, i64) {
            let h = hma(close, w[0], w[1], w[2]);
            let h3 = hma3(close, w[3], w[4], w[5]);
            let n = close.len();
            let mut pos: i64 = 0;
            let mut entry = 0.0f64;
            let mut prev = 0.0f64;
            let mut pnl = 0.0f64;
            let mut trades: i64 = 0;
            for i in 0..n {
                let d = $rd!(h3, i) - $rd!(h, i);
                if d.is_nan() {
                    continue;
                }
                if prev != 0.0 && ((d > 0.0 && prev < 0.0) || (d < 0.0 && prev > 0.0)) {
                    if pos != 0 {
                        let r = pos as f64 * ($rd!(close, i) / entry - 1.0);
                        pnl += ((1.0 + r) * (1.0 - fee) - 1.0) * 100.0;
                        trades += 1;
                    }
                    pos = if d > 0.0 { 1 } else { -1 };
                    entry = $rd!(close, i);
                }
                if d != 0.0 {
                    prev = d;
                }
            }
            if pos != 0 {
                let r = pos as f64 * ($rd!(close, n - 1) / entry - 1.0);
                pnl += ((1.0 + r) * (1.0 - fee) - 1.0) * 100.0;
                trades += 1;
            }
            (pnl, trades)
        }

        /// Run every combo; validates the series and the windows first (so the unchecked kernel
        /// never indexes out of bounds).  Returns (pnl, trades) per combo, in order.
        pub fn sweep(close: &[f64], windows: &[Windows], fee: f64) -> Result<Vec<(f64, i64)>, Error> {
            check_series(close)?;
            check_windows(windows, close.len())?;
            let mut out = Vec::with_capacity(windows.len());
            for w in windows {
                out.push(backtest(close, w, fee));
            }
            Ok(out)
        }
    };
}

/// Bounds-checked indexing (the article's `rust_batch_unix` kernel).
pub mod safe {
    hma_kernel!(rd_safe, wr_safe);
}

/// `get_unchecked` indexing (the article's `rust_batch_unchecked` kernel).
pub mod unchecked {
    hma_kernel!(rd_unchecked, wr_unchecked);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_match_spec() {
        assert_eq!(windows_from_length(6).unwrap(), [3, 6, 2, 1, 2, 3]);
        assert_eq!(windows_from_length(5).unwrap(), [2, 5, 2, 1, 1, 2]);
        assert!(windows_from_length(1).is_err());
    }

    #[test]
    fn grid_matches_spec() {
        let g = default_grid();
        assert_eq!(g.len(), 80);
        assert_eq!(&g[..10], &[6, 8, 10, 13, 15, 18, 20, 23, 25, 28]);
        assert_eq!(&g[77..], &[195, 197, 200]);
    }

    #[test]
    fn safe_equals_unchecked() {
        let mut x = vec![0.0; 500];
        let mut c = 0.0f64;
        let mut s: u64 = 12345;
        for v in x.iter_mut() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            c += ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.01;
            *v = 100.0 * c.exp();
        }
        let w: Vec<Windows> = [6, 8, 17, 40].iter().map(|&l| windows_from_length(l).unwrap()).collect();
        let a = safe::sweep(&x, &w, FEE).unwrap();
        let b = unchecked::sweep(&x, &w, FEE).unwrap();
        for (p, q) in a.iter().zip(&b) {
            assert_eq!(p.0.to_bits(), q.0.to_bits());
            assert_eq!(p.1, q.1);
        }
        assert!(unchecked::sweep(&x[..10], &w, FEE).is_err());
    }
}
