//! NGINX proved against the real process: a `nginx.conf` of several locations is run by
//! `nginx` itself in front of upstream servers this test starts on 127.0.0.1, which count
//! every request they receive and answer as each case asks (503, 500, 429, closing the
//! connection after reading the request, answering past the proxy's read timeout, 200).
//! One request is sent per case, GET and POST; the requests that reached the upstreams
//! are compared with what retrylint reads from the same file: the route's `maxAttempts`
//! when its `retryOn` holds the failure and it retries the method, else one.
//!
//! What nginx does is nginx/nginx `src/http/ngx_http_upstream.c`
//! (`ngx_http_upstream_next`): the failure must be among `proxy_next_upstream`'s
//! conditions, a sent POST, LOCK or PATCH needs `non_idempotent`, and `peer.tries` (the
//! group's servers, lowered to `proxy_next_upstream_tries`) bounds the attempts.
//!
//! Ignored by default (it needs `nginx` on `PATH` or in `/usr/sbin`); `.ci/run` runs it
//! with `--include-ignored`. Without nginx it says `SKIPPED` and passes.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use retrylint::analysis::layers::Route;
use retrylint::analysis::layers::detect::{Detected, detect, import};
use retrylint::input::policy::Signal;

/// The locations of the configuration: `(path, directives)`; `{two}`, `{three}` and
/// `{one}` stand for the upstream groups and a single server.
const LOCATIONS: &[(&str, &str)] = &[
    ("/default/", "proxy_pass http://two;"),
    (
        "/s503/",
        "proxy_next_upstream error timeout http_503; proxy_pass http://two;",
    ),
    (
        "/ni/",
        "proxy_next_upstream error timeout http_500 http_503 http_429 non_idempotent; proxy_pass http://two;",
    ),
    ("/off/", "proxy_next_upstream off; proxy_pass http://two;"),
    (
        "/tries1/",
        "proxy_next_upstream http_503 http_500; proxy_next_upstream_tries 1; proxy_pass http://three;",
    ),
    (
        "/three/",
        "proxy_next_upstream error http_503 http_429 non_idempotent; proxy_next_upstream_tries 0; proxy_pass http://three;",
    ),
    (
        "/tries2/",
        "proxy_next_upstream http_500 http_429 non_idempotent; proxy_next_upstream_tries 2; proxy_pass http://three;",
    ),
    (
        "/single/",
        "proxy_next_upstream error timeout http_503 non_idempotent; proxy_pass http://{one};",
    ),
];

/// What an upstream does with a request, named by the request path's last segment.
const FAILURES: &[&str] = &["503", "500", "429", "close", "slow", "200"];

/// How long nginx waits for an upstream's answer, and how long a slow one takes.
const READ_TIMEOUT_MS: u64 = 700;
const SLOW_MS: u64 = 1_200;

fn find_nginx() -> Option<PathBuf> {
    let candidates = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")]);
    candidates.map(|d| d.join("nginx")).find(|p| p.is_file())
}

type Counts = Arc<Mutex<HashMap<String, u32>>>;

/// Starts an upstream server; it counts each request by path and answers as it asks.
fn upstream(counts: &Counts) -> u16 {
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
            "200 OK"
        }
        "503" => "503 Service Unavailable",
        "500" => "500 Internal Server Error",
        "429" => "429 Too Many Requests",
        _ => "200 OK",
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn config(dir: &Path, listen: u16, ports: &[u16]) -> String {
    let server = |p: &u16| format!("server 127.0.0.1:{p} max_fails=0;");
    let two: Vec<String> = ports[..2].iter().map(server).collect();
    let three: Vec<String> = ports[..3].iter().map(server).collect();
    let locations: Vec<String> = LOCATIONS
        .iter()
        .map(|(path, body)| {
            let body = body.replace("{one}", &format!("127.0.0.1:{}", ports[0]));
            format!("        location {path} {{ {body} }}")
        })
        .collect();
    let d = dir.display();
    format!(
        "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log info;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n    access_log off;\n    client_body_temp_path {d}/body;\n    proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi;\n    uwsgi_temp_path {d}/uwsgi;\n    scgi_temp_path {d}/scgi;\n\
         proxy_read_timeout {READ_TIMEOUT_MS}ms;\n    proxy_connect_timeout 1s;\n\
         upstream two {{ {} }}\n    upstream three {{ {} }}\n\
         server {{\n        listen 127.0.0.1:{listen};\n{}\n    }}\n}}\n",
        two.join(" "),
        three.join(" "),
        locations.join("\n")
    )
}

/// Kills the nginx it holds when dropped, whatever the test's outcome.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn request(port: u16, method: &str, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let body = if method == "POST" { "{}" } else { "" };
    write!(
        stream,
        "{method} {path} HTTP/1.0\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

/// What retrylint says: the route's attempts when it retries this failure and method.
fn retrylint_attempts(route: &Route, method: &str, failure: &str) -> i64 {
    let signal = match failure {
        "close" => Signal::Reset,
        "slow" => Signal::Timeout,
        "200" => return 1,
        code => Signal::Status(code.parse().unwrap()),
    };
    let retried = route.retries_method(method)
        && route
            .policy
            .retry_on
            .as_ref()
            .is_some_and(|on| on.value.iter().any(|s| s.value == signal));
    let attempts = route.policy.max_attempts.as_ref().map_or(1, |a| a.value);
    if retried { attempts } else { 1 }
}

#[test]
#[ignore = "runs the real nginx: .ci/run runs it with --include-ignored"]
fn nginx_retries_what_retrylint_reads() {
    let Some(nginx) = find_nginx() else {
        eprintln!("SKIPPED: nginx is not installed (apt-get install nginx)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("retrylint-nginx-live-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let counts: Counts = Arc::default();
    let ports: Vec<u16> = (0..3).map(|_| upstream(&counts)).collect();
    let listen = free_port();
    let conf = dir.join("nginx.conf");
    std::fs::write(&conf, config(&dir, listen, &ports)).unwrap();

    // What retrylint reads from the very file nginx runs.
    let options = retrylint::input::load::LoadOptions::default();
    let Detected::Layers(file) = detect(&conf, false, &options).unwrap() else {
        panic!("nginx.conf is not read as NGINX");
    };
    let layers = import(&file, 0).unwrap();
    let routes = &layers[0].routes;

    let child = Command::new(&nginx)
        .arg("-p")
        .arg(&dir)
        .arg("-c")
        .arg(&conf)
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _running = Running(child);
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", listen)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "nginx did not listen: {}",
            std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    let mut table = vec![
        "| case | method | failure | location | nginx attempts | retrylint attempts |".to_string(),
        "|---|---|---|---|---|---|".to_string(),
    ];
    let mut disagreements = Vec::new();
    let mut case = 0;
    for (location, _) in LOCATIONS {
        let route = routes
            .iter()
            .find(|r| r.name.to_string() == format!("location {location}"))
            .unwrap_or_else(|| panic!("no route for {location}"));
        for failure in FAILURES {
            // A slow upstream costs a read timeout per attempt: a few locations show it.
            if *failure == "slow" && !matches!(*location, "/default/" | "/ni/" | "/off/") {
                continue;
            }
            for method in ["GET", "POST"] {
                case += 1;
                let path = format!("{location}{case}/{failure}");
                let status = request(listen, method, &path);
                let seen = counts.lock().unwrap().get(&path).copied().unwrap_or(0);
                let said = retrylint_attempts(route, method, failure);
                table.push(format!(
                    "| {case} | {method} | {failure} | `{location}` | {seen} | {said} |"
                ));
                if i64::from(seen) != said {
                    disagreements.push(format!(
                        "case {case}: {method} {path}: nginx made {seen} attempts ({status}), retrylint says {said}"
                    ));
                }
            }
        }
    }
    eprintln!("{}", table.join("\n"));
    // The NGINX page shows the same outcomes.
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/nginx.md"))
            .unwrap();
    for row in &table {
        assert!(
            page.contains(row.as_str()),
            "docs/src/nginx.md lacks the row {row}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(case >= 30, "{case} cases");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
