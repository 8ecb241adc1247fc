//! The study's engine: docs/spec.md §6 frames over a Unix socket, TCP (with `TCP_NODELAY`) or stdin/stdout.
//!
//!   rust_engine_safe|rust_engine_unchecked (--unix PATH | --tcp HOST:PORT | --stdin)
//!
//! The loop is the article's `read_frame` → compute → `write_frame`, with zero crates.  Like the
//! article's engine it parses every f64 of a request into a `Vec<f64>` and re-encodes every reply value
//! (echo included: the study's echo "parses all n floats and re-encodes them").  Two things are added
//! that the article's excerpt leaves out, because a server must not crash on bad input:
//! - a malformed request gets the error reply of `docs/protocol.md` (`[u32 0x80000000|len][u32 code]
//!   [message]`); a docs/spec.md §6 client sees an impossible length and stops.  Over stdin the engine also
//!   exits 1 with the message on stderr, as `hmasweep wire` does.
//! - each connection runs on its own thread, so one slow or vanished client never blocks another.
//!   The timed architectures use one connection at a time, so this does not change what is measured.

use crate::cli::SweepFn;
use crate::{Error, Windows, FEE};
use std::io::{Read, Write};

/// The largest request body accepted (a 150,000-bar series is 1.2 MB; this leaves room for
/// 16M bars).  A larger length prefix is refused before anything is allocated.
pub const MAX_FRAME_BYTES: usize = 128 << 20;

const ERR_BAD_DATA: u32 = 1;
const ERR_BAD_REQUEST: u32 = 2;
const ERR_LIMIT: u32 = 16;

/// One refused request: the error code of docs/protocol.md, the message, and whether the stream is
/// still in step (the whole frame was read) so the connection may go on.
struct Refusal {
    code: u32,
    message: String,
    in_step: bool,
}

fn refuse(code: u32, message: String) -> Refusal {
    Refusal { code, message, in_step: true }
}

/// The article's read_frame: `[u32 len][len bytes]`.  `Ok(None)` is a clean end of stream (no byte of
/// a new frame arrived); a stream that ends inside a frame is an error.
fn read_frame<R: Read>(r: &mut R) -> Result<Option<Vec<u8>>, Refusal> {
    let mut len_buf = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len_buf[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(lost(format!("truncated length prefix ({} of 4 bytes)", got))),
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(lost(format!("read failed: {}", e))),
        }
    }
    let len = u32::from_le_bytes(len_buf) as usize;
    if len > MAX_FRAME_BYTES {
        return Err(Refusal {
            code: ERR_LIMIT,
            message: format!("frame of {} bytes exceeds the limit of {} bytes", len, MAX_FRAME_BYTES),
            in_step: false,
        });
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body)
        .map_err(|e| lost(format!("truncated body: expected {} bytes ({})", len, e)))?;
    Ok(Some(body))
}

fn lost(message: String) -> Refusal {
    Refusal { code: ERR_BAD_REQUEST, message, in_step: false }
}

/// The article's write_frame: the length, the body, flush.
fn write_frame<W: Write>(w: &mut W, body: &[u8]) -> std::io::Result<()> {
    w.write_all(&(body.len() as u32).to_le_bytes())?;
    w.write_all(body)?;
    w.flush()
}

fn write_error<W: Write>(w: &mut W, r: &Refusal) -> std::io::Result<()> {
    let mut body = Vec::with_capacity(4 + r.message.len());
    body.extend_from_slice(&r.code.to_le_bytes());
    body.extend_from_slice(r.message.as_bytes());
    w.write_all(&(0x8000_0000u32 | body.len() as u32).to_le_bytes())?;
    w.write_all(&body)?;
    w.flush()
}

/// A decoded docs/spec.md §6 request.
struct Request {
    opcode: u8,
    close: Vec<f64>,
    windows: Vec<Windows>,
}

fn parse_request(body: &[u8]) -> Result<Request, Refusal> {
    if body.len() < 9 {
        return Err(refuse(ERR_BAD_REQUEST, format!(
            "request body of {} bytes is shorter than the 9-byte header", body.len())));
    }
    let opcode = body[0];
    if opcode > 1 {
        return Err(refuse(ERR_BAD_REQUEST, format!("unknown opcode {} (this engine speaks 0 sweep, 1 echo)", opcode)));
    }
    let n_bars = u32::from_le_bytes([body[1], body[2], body[3], body[4]]) as usize;
    let n_combos = u32::from_le_bytes([body[5], body[6], body[7], body[8]]) as usize;
    let want = 9u64 + 8 * n_bars as u64 + 48 * n_combos as u64;
    if want != body.len() as u64 {
        return Err(refuse(ERR_BAD_REQUEST, format!(
            "body is {} bytes but n_bars={} and n_combos={} imply {}", body.len(), n_bars, n_combos, want)));
    }
    let close: Vec<f64> = body[9..9 + 8 * n_bars]
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    let mut windows = Vec::with_capacity(n_combos);
    for (k, c) in body[9 + 8 * n_bars..].chunks_exact(48).enumerate() {
        let mut w: Windows = [0; 6];
        for (j, v) in c.chunks_exact(8).enumerate() {
            let x = i64::from_le_bytes([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]);
            if x < 1 || x as u64 > n_bars as u64 {
                return Err(refuse(ERR_BAD_REQUEST, format!(
                    "combo {}: w{} = {} is outside 1..={} (n_bars)", k, j, x, n_bars)));
            }
            w[j] = x as usize;
        }
        windows.push(w);
    }
    Ok(Request { opcode, close, windows })
}

/// One request → one reply body (docs/spec.md §6).
fn answer(body: &[u8], sweep: SweepFn) -> Result<Vec<u8>, Refusal> {
    let req = parse_request(body)?;
    if req.opcode == 1 {
        let mut out = Vec::with_capacity(8 * req.close.len());
        for v in &req.close {
            out.extend_from_slice(&v.to_le_bytes());
        }
        return Ok(out);
    }
    let results = sweep(&req.close, &req.windows, FEE).map_err(|e| match e {
        Error::Data(m) => refuse(ERR_BAD_DATA, m),
        Error::Usage(m) => refuse(ERR_BAD_REQUEST, m),
    })?;
    let mut out = Vec::with_capacity(16 * results.len());
    for (pnl, _) in &results {
        out.extend_from_slice(&pnl.to_le_bytes());
    }
    for (_, trades) in &results {
        out.extend_from_slice(&trades.to_le_bytes());
    }
    Ok(out)
}

/// The article's loop on one stream: read frame → compute → write frame, until the client closes.
/// Returns the first refusal that ended the stream (None on a clean close).
fn serve_stream<R: Read, W: Write>(r: &mut R, w: &mut W, sweep: SweepFn, stop_on_error: bool) -> Option<String> {
    loop {
        let body = match read_frame(r) {
            Ok(Some(b)) => b,
            Ok(None) => return None,
            Err(e) => {
                let _ = write_error(w, &e);
                return Some(e.message);
            }
        };
        match answer(&body, sweep) {
            Ok(reply) => {
                if write_frame(w, &reply).is_err() {
                    return None; // the client vanished; nothing to tell it
                }
            }
            Err(e) => {
                let _ = write_error(w, &e);
                if stop_on_error || !e.in_step {
                    return Some(e.message);
                }
            }
        }
    }
}

fn serve_unix(path: &str, sweep: SweepFn) -> Result<(), Error> {
    use std::os::unix::net::UnixListener;
    let _ = std::fs::remove_file(path); // a stale socket from an earlier run
    let listener = UnixListener::bind(path).map_err(|e| Error::Usage(format!("cannot bind {}: {}", path, e)))?;
    eprintln!("listening on unix:{}", path);
    for stream in listener.incoming() {
        let Ok(s) = stream else { continue };
        std::thread::spawn(move || {
            let mut r = &s;
            let mut w = &s;
            serve_stream(&mut r, &mut w, sweep, false);
        });
    }
    Ok(())
}

fn serve_tcp(addr: &str, sweep: SweepFn) -> Result<(), Error> {
    use std::net::TcpListener;
    let listener = TcpListener::bind(addr).map_err(|e| Error::Usage(format!("cannot bind {}: {}", addr, e)))?;
    let local = listener.local_addr().map_err(|e| Error::Usage(e.to_string()))?;
    eprintln!("listening on tcp:{}", local);
    for stream in listener.incoming() {
        let Ok(s) = stream else { continue };
        let _ = s.set_nodelay(true); // the article: TCP with TCP_NODELAY
        std::thread::spawn(move || {
            let mut r = &s;
            let mut w = &s;
            serve_stream(&mut r, &mut w, sweep, false);
        });
    }
    Ok(())
}

fn serve_stdin(sweep: SweepFn) -> Result<(), Error> {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut r = stdin.lock();
    let mut w = stdout.lock();
    match serve_stream(&mut r, &mut w, sweep, true) {
        None => Ok(()),
        Some(m) => Err(Error::Data(m)),
    }
}

const USAGE: &str = "usage: {bin} (--unix PATH | --tcp HOST:PORT | --stdin)";

/// Runs the engine; returns the process exit status (0 ok, 1 a refused request on stdin, 2 usage).
pub fn main(name: &str, sweep: SweepFn) -> i32 {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let usage = USAGE.replace("{bin}", name);
    let result = match argv.iter().map(|s| s.as_str()).collect::<Vec<_>>().as_slice() {
        ["--unix", path] => serve_unix(path, sweep),
        ["--tcp", addr] => serve_tcp(addr, sweep),
        ["--stdin"] => serve_stdin(sweep),
        ["-h"] | ["--help"] => {
            println!("{}", usage);
            Ok(())
        }
        _ => Err(Error::Usage(format!("bad arguments {:?}\n{}", argv, usage))),
    };
    match result {
        Ok(()) => 0,
        Err(Error::Data(m)) => {
            eprintln!("{}: {}", name, m);
            1
        }
        Err(Error::Usage(m)) => {
            eprintln!("{}: {}", name, m);
            2
        }
    }
}
