//! The command line shared by both binaries:
//!   rust_safe|rust_unchecked --input FILE.f64 [--lengths a,b,..] [--repeat N] [--output out.json]
//! Prints {"variant", "bars", "seconds", "seconds_all", "rustc", "combos": [...]}.
//! Exit status: 0 ok, 1 bad data, 2 bad usage.  Never panics on bad input.

use crate::{default_grid, windows_from_length, Error, Windows, FEE};
use std::io::Write;
use std::time::Instant;

/// The kernel entry point of one build.
pub type SweepFn = fn(&[f64], &[Windows], f64) -> Result<Vec<(f64, i64)>, Error>;

struct Args {
    input: String,
    lengths: Option<Vec<i64>>,
    repeat: usize,
    output: Option<String>,
}

const USAGE: &str = "usage: {bin} --input FILE.f64 [--lengths a,b,..] [--repeat N] [--output out.json]";

fn parse_args(bin: &str, argv: &[String]) -> Result<Option<Args>, Error> {
    let usage = USAGE.replace("{bin}", bin);
    let mut input = None;
    let mut lengths = None;
    let mut repeat = 1usize;
    let mut output = None;
    let mut i = 0;
    while i < argv.len() {
        let a = argv[i].as_str();
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (a, None),
        };
        if key == "-h" || key == "--help" {
            println!("{}", usage);
            return Ok(None);
        }
        if !matches!(key, "--input" | "--lengths" | "--repeat" | "--output") {
            return Err(Error::Usage(format!("unknown argument {:?}\n{}", a, usage)));
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                match argv.get(i) {
                    Some(v) => v.clone(),
                    None => return Err(Error::Usage(format!("{} needs a value\n{}", key, usage))),
                }
            }
        };
        match key {
            "--input" => input = Some(value),
            "--output" => output = Some(value),
            "--repeat" => {
                repeat = value
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&r| r >= 1)
                    .ok_or_else(|| Error::Usage(format!("--repeat: {:?} is not an integer >= 1", value)))?
            }
            _ => {
                let mut v = Vec::new();
                for tok in value.split(',') {
                    let t = tok.trim();
                    v.push(t.parse::<i64>().map_err(|_| {
                        Error::Usage(format!("--lengths: {:?} is not an integer", t))
                    })?);
                }
                lengths = Some(v);
            }
        }
        i += 1;
    }
    let input = input.ok_or_else(|| Error::Usage(format!("--input FILE is required\n{}", usage)))?;
    Ok(Some(Args { input, lengths, repeat, output }))
}

/// Raw little-endian f64, checked (docs/spec.md §1: finite, > 0, at least one bar).
pub fn read_series(path: &str) -> Result<Vec<f64>, Error> {
    let bytes = std::fs::read(path).map_err(|e| Error::Data(format!("cannot read {}: {}", path, e)))?;
    if bytes.len() % 8 != 0 {
        return Err(Error::Data(format!(
            "{}: {} bytes is not a whole number of little-endian f64 values",
            path,
            bytes.len()
        )));
    }
    let x: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    crate::check_series(&x).map_err(|e| match e {
        Error::Data(m) => Error::Data(format!("{}: {}", path, m)),
        other => other,
    })?;
    Ok(x)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

/// Shortest round-trip representation (Rust's `{:?}` for f64 is round-trip exact), JSON-safe.
fn json_f64(x: f64) -> String {
    if x.is_finite() {
        format!("{:?}", x)
    } else {
        "null".to_string()
    }
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn run(variant: &str, sweep: SweepFn, argv: &[String]) -> Result<(), Error> {
    let args = match parse_args(variant, argv)? {
        Some(a) => a,
        None => return Ok(()),
    };
    let close = read_series(&args.input)?;
    let lengths = args.lengths.unwrap_or_else(default_grid);
    if lengths.is_empty() {
        return Err(Error::Usage("--lengths: empty list".into()));
    }
    let mut windows = Vec::with_capacity(lengths.len());
    for &l in &lengths {
        let w = windows_from_length(l)?;
        let longest = *w.iter().max().unwrap_or(&0);
        if longest > close.len() {
            return Err(Error::Usage(format!(
                "length {}: window {} is longer than the series ({} bars)",
                l,
                longest,
                close.len()
            )));
        }
        windows.push(w);
    }

    let mut times = Vec::with_capacity(args.repeat);
    let mut results = Vec::new();
    for _ in 0..args.repeat {
        let t0 = Instant::now();
        results = sweep(&close, &windows, FEE)?;
        times.push(t0.elapsed().as_secs_f64());
    }

    let mut s = String::new();
    s.push_str("{\n");
    s.push_str(&format!(" \"variant\": {},\n", json_str(variant)));
    s.push_str(&format!(" \"bars\": {},\n", close.len()));
    s.push_str(&format!(" \"seconds\": {},\n", json_f64(median(&times))));
    let all: Vec<String> = times.iter().map(|&t| json_f64(t)).collect();
    s.push_str(&format!(" \"seconds_all\": [{}],\n", all.join(", ")));
    s.push_str(&format!(" \"rustc\": {},\n", json_str(env!("HS_RUSTC_VERSION"))));
    s.push_str(" \"combos\": [\n");
    for (k, ((l, w), (pnl, trades))) in lengths.iter().zip(&windows).zip(&results).enumerate() {
        let ws: Vec<String> = w.iter().map(|v| v.to_string()).collect();
        s.push_str(&format!(
            "  {{\"length\": {}, \"windows\": [{}], \"trades\": {}, \"pnl\": {}}}{}\n",
            l,
            ws.join(", "),
            trades,
            json_f64(*pnl),
            if k + 1 < lengths.len() { "," } else { "" }
        ));
    }
    s.push_str(" ]\n}\n");

    match &args.output {
        Some(path) => std::fs::write(path, s.as_bytes())
            .map_err(|e| Error::Data(format!("cannot write {}: {}", path, e)))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(s.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| Error::Data(format!("cannot write stdout: {}", e)))?;
        }
    }
    Ok(())
}

/// Runs the command line; returns the process exit status.
pub fn main(variant: &str, sweep: SweepFn) -> i32 {
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match run(variant, sweep, &argv) {
        Ok(()) => 0,
        Err(Error::Data(m)) => {
            eprintln!("{}: {}", variant, m);
            1
        }
        Err(Error::Usage(m)) => {
            eprintln!("{}: {}", variant, m);
            2
        }
    }
}
