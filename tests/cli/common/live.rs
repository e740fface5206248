//! What the tests against a real proxy share: finding the program, upstream servers that
//! count each request and fail as its path asks, one request at a time, the process
//! stopped whatever the outcome, and the attempts retrylint reads for a failure.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Child;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use retrylint::analysis::layers::Route;
use retrylint::input::policy::Signal;

/// How long a `slow` upstream takes to answer: past every proxy's per-attempt timeout in
/// these tests.
pub(crate) const SLOW_MS: u64 = 1_200;

/// The program on `PATH`, or in `/usr/sbin` or `/usr/local/sbin` where Debian puts it.
pub(crate) fn find_program(name: &str) -> Option<PathBuf> {
    let candidates = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")]);
    candidates.map(|d| d.join(name)).find(|p| p.is_file())
}

/// Requests received, by path.
pub(crate) type Counts = Arc<Mutex<HashMap<String, u32>>>;

/// Starts an upstream server; it counts each request by path and answers as the path's
/// last segment asks: `close` (closes after reading the request), `slow` (answers after
/// [`SLOW_MS`]), a status code, else 200.
pub(crate) fn upstream(counts: &Counts) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let counts = counts.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let counts = counts.clone();
            std::thread::spawn(move || serve(stream, &counts));
        }
    });
    port
}

fn serve(mut stream: TcpStream, counts: &Counts) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&data[..head_end]).to_string();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while data.len() < head_end + length {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
    let path = head
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    *counts.lock().unwrap().entry(path.clone()).or_default() += 1;
    let failure = path.rsplit('/').next().unwrap_or_default();
    let status = match failure {
        "close" => {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
        "slow" => {
            std::thread::sleep(Duration::from_millis(SLOW_MS));
            "200 OK".to_string()
        }
        code if code.len() == 3 && code != "200" => format!("{code} Failed"),
        _ => "200 OK".to_string(),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
    );
}

/// A port nothing listens on (a refused connection).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the process it holds when dropped, whatever the test's outcome.
pub(crate) struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Sends one HTTP/1.0 request and returns the answer's status line.
pub(crate) fn request(port: u16, method: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let request = format!(
        "{method} {path} HTTP/1.0\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

/// What retrylint says: the route's attempts when it retries this failure (each of its
/// `-`-joined parts: a refused connection, then the status of the server a redispatch
/// reaches) and this method, else one.
pub(crate) fn retrylint_attempts(route: &Route, method: &str, failure: &str) -> i64 {
    let mut signals = Vec::new();
    for part in failure.split('-') {
        signals.push(match part {
            "close" => Signal::Reset,
            "slow" => Signal::Timeout,
            "refused" => Signal::ConnectFailure,
            "200" => return 1,
            code => Signal::Status(code.parse().unwrap()),
        });
    }
    let retried = route.retries_method(method)
        && signals.iter().all(|signal| {
            route
                .policy
                .retry_on
                .as_ref()
                .is_some_and(|on| on.value.iter().any(|s| s.value == *signal))
        });
    let attempts = route.policy.max_attempts.as_ref().map_or(1, |a| a.value);
    if retried { attempts } else { 1 }
}
