//! HAProxy proved against the real process: a `haproxy.cfg` of one frontend and several
//! backends is run by `haproxy` itself in front of upstream servers this test starts on
//! 127.0.0.1, which count every request they receive and answer as each case asks (a
//! status, closing the connection after reading the request, answering past `timeout
//! server`, 200), and of a port where nothing listens (the connection is refused). One
//! request is sent per case, GET and POST; the attempts HAProxy made are compared with
//! what retrylint reads from the same file: the route's `maxAttempts` when its `retryOn`
//! holds the failure and it retries the method, else one.
//!
//! The attempts are counted at the upstreams; a refused connection reaches none, so for
//! those (and for the backend whose retries are redispatched from the refusing server to a
//! counting one) HAProxy's own log says them: `%rc`, the retries of the request, is sent to a UDP
//! socket of this test (`log-format`), and the attempts are `%rc` + 1.
//!
//! What HAProxy does is haproxy/haproxy `src/backend.c` (`back_handle_st_cer`, connection
//! retries) and `src/http_ana.c` (`do_l7_retry`): `retries` bounds the retries, `retry-on`
//! says on what, no method is spared, and `http-request disable-l7-retry` (`src/http_act.c`)
//! leaves the requests it takes only their connection retries.
//!
//! Ignored by default (it needs `haproxy` on `PATH` or in `/usr/sbin`); `.ci/run` runs it
//! with `--include-ignored`. Without haproxy it says `SKIPPED` and passes.

use std::collections::HashMap;
use std::net::{TcpStream, UdpSocket};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use retrylint::analysis::layers::detect::{Detected, detect, import};

use crate::common::live::{
    Counts, Running, find_program, free_port, request, retrylint_attempts, upstream,
};

/// The backends, each reached by `use_backend NAME if { path_beg /NAME/ }`: `(name,
/// settings, servers, failures sent to it)`. `{a}`, `{b}` are counting upstreams, `{r}` a
/// port where nothing listens.
const BACKENDS: &[(&str, &str, &str, &[&str])] = &[
    ("dflt", "", "a", &["503", "500", "close", "slow", "200"]),
    (
        "l7",
        "retries 2\n  retry-on conn-failure empty-response response-timeout 503 502\n  option redispatch",
        "a b",
        &["503", "502", "500", "close", "slow", "200"],
    ),
    (
        "all",
        "retries 1\n  retry-on all-retryable-errors",
        "a",
        &["503", "500", "404", "close", "200"],
    ),
    ("none", "retry-on none", "a", &["503", "close"]),
    (
        "s404",
        "retries 4\n  retry-on 404 401",
        "a",
        &["404", "401", "503", "200"],
    ),
    (
        "nopost",
        "retries 2\n  retry-on conn-failure empty-response 503\n  http-request disable-l7-retry if METH_POST",
        "a",
        &["503", "close"],
    ),
    (
        "nol7",
        "retries 1\n  retry-on 503\n  http-request disable-l7-retry",
        "a",
        &["503"],
    ),
    ("ref", "", "r", &["refused"]),
    (
        "refnp",
        "retries 2\n  http-request disable-l7-retry if { method POST }",
        "r",
        &["refused"],
    ),
    (
        "ref1",
        "retries 1\n  retry-on empty-response",
        "r",
        &["refused"],
    ),
    (
        "refr",
        "retries 2\n  retry-on conn-failure 503\n  option redispatch 1\n  balance first",
        "r b",
        &["refused-503"],
    ),
];

/// How long HAProxy waits for an upstream's answer, and how long a slow one takes.
const SERVER_TIMEOUT_MS: u64 = 700;

fn config(listen: u16, log: u16, servers: &HashMap<&str, u16>) -> String {
    let mut text = format!(
        "global\n  log 127.0.0.1:{log} local0\n  maxconn 256\n\n\
         defaults\n  mode http\n  log global\n  log-format \"RL %rc %HU\"\n\
         timeout connect 200ms\n  timeout client 10s\n  timeout server {SERVER_TIMEOUT_MS}ms\n\n\
         frontend public\n  bind 127.0.0.1:{listen}\n"
    );
    for (name, ..) in BACKENDS {
        text.push_str(&format!(
            "  use_backend {name} if {{ path_beg /{name}/ }}\n"
        ));
    }
    for (name, settings, names, _) in BACKENDS {
        text.push_str(&format!("\nbackend {name}\n"));
        if !settings.is_empty() {
            text.push_str(&format!("  {settings}\n"));
        }
        for server in names.split_whitespace() {
            let port = servers[server];
            text.push_str(&format!("  server {server} 127.0.0.1:{port}\n"));
        }
    }
    text
}

/// HAProxy's log line for `path`: the retries it made (`%rc`, `+` when redispatched).
fn logged_retries(log: &UdpSocket, seen: &mut HashMap<String, u32>, path: &str) -> Option<u32> {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    while started.elapsed() < Duration::from_secs(3) {
        if let Some(retries) = seen.get(path) {
            return Some(*retries);
        }
        if let Ok(n) = log.recv(&mut buf) {
            let line = String::from_utf8_lossy(&buf[..n]).to_string();
            let Some((_, rest)) = line.split_once("RL ") else {
                continue;
            };
            let mut words = rest.split_whitespace();
            let retries = words.next().map(|r| r.trim_start_matches('+').parse());
            if let (Some(Ok(retries)), Some(uri)) = (retries, words.next()) {
                seen.insert(uri.to_string(), retries);
            }
        }
    }
    None
}

#[test]
#[ignore = "runs the real haproxy: .ci/run runs it with --include-ignored"]
fn haproxy_retries_what_retrylint_reads() {
    let Some(haproxy) = find_program("haproxy") else {
        eprintln!("SKIPPED: haproxy is not installed (apt-get install haproxy)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("retrylint-haproxy-live-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let counts: Counts = Arc::default();
    let servers: HashMap<&str, u16> = [
        ("a", upstream(&counts)),
        ("b", upstream(&counts)),
        ("r", free_port()),
    ]
    .into_iter()
    .collect();
    let log = UdpSocket::bind("127.0.0.1:0").unwrap();
    log.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let log_port = log.local_addr().unwrap().port();
    let listen = free_port();
    let cfg = dir.join("haproxy.cfg");
    std::fs::write(&cfg, config(listen, log_port, &servers)).unwrap();

    // What retrylint reads from the very file haproxy runs.
    let options = retrylint::input::load::LoadOptions::default();
    let Detected::Layers(file) = detect(&cfg, false, &options).unwrap() else {
        panic!("haproxy.cfg is not read as HAProxy");
    };
    let layers = import(&file, 0).unwrap();
    let routes = &layers[0].routes;

    let child = Command::new(&haproxy)
        .arg("-db")
        .arg("-f")
        .arg(&cfg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _running = Running(child);
    // A hang guard counted in polls, not a bound on how fast haproxy starts.
    let mut polls = 0;
    while TcpStream::connect(("127.0.0.1", listen)).is_err() {
        polls += 1;
        assert!(polls < 1200, "haproxy did not listen");
        std::thread::sleep(Duration::from_millis(50));
    }

    let mut table = vec![
        "| case | method | failure | backend | haproxy attempts | retrylint attempts |".to_string(),
        "|---|---|---|---|---|---|".to_string(),
    ];
    let mut disagreements = Vec::new();
    let mut logged = HashMap::new();
    let mut case = 0;
    for (backend, _, _, failures) in BACKENDS {
        for failure in *failures {
            for method in ["GET", "POST"] {
                // The first route of the rule that takes the method, as a request finds it.
                let route = routes
                    .iter()
                    .find(|r| {
                        r.name
                            .to_string()
                            .starts_with(&format!("use_backend {backend} "))
                            && r.matches
                                .iter()
                                .any(|m| m.method.as_ref().is_none_or(|x| x.matches(method)))
                    })
                    .unwrap_or_else(|| panic!("no route for {backend}"));
                case += 1;
                // A refused connection reaches no upstream; the server a redispatch
                // reaches answers the status after the dash, or 200.
                let answer = match failure.split_once('-') {
                    Some((_, status)) => status,
                    None if *failure == "refused" => "200",
                    None => failure,
                };
                let path = format!("/{backend}/{case}/{answer}");
                let body = if method == "POST" {
                    "{\"order\":1}"
                } else {
                    ""
                };
                let status = request(listen, method, &path, body);
                let seen = if failure.starts_with("refused") {
                    logged_retries(&log, &mut logged, &path).map_or(0, |r| r + 1)
                } else {
                    counts.lock().unwrap().get(&path).copied().unwrap_or(0)
                };
                let said = retrylint_attempts(route, method, failure);
                table.push(format!(
                    "| {case} | {method} | {failure} | `{backend}` | {seen} | {said} |"
                ));
                if i64::from(seen) != said {
                    disagreements.push(format!(
                        "case {case}: {method} {path}: haproxy made {seen} attempts ({status}), retrylint says {said}"
                    ));
                }
            }
        }
    }
    // An L7 retry needs the whole request in one buffer (16 kB): a larger body is sent once
    // whatever `retry-on` says, which retrylint does not model (the docs say so).
    let big = "x".repeat(20_000);
    let path = "/l7/big/503";
    request(listen, "POST", path, &big);
    let big_seen = counts.lock().unwrap().get(path).copied().unwrap_or(0);
    table.push(format!(
        "| {} | POST, 20 kB body | 503 | `l7` | {big_seen} | not modelled |",
        case + 1
    ));
    eprintln!("{}", table.join("\n"));
    // The HAProxy page shows the same outcomes.
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/haproxy.md"))
            .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(case >= 30, "{case} cases");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert_eq!(big_seen, 1, "a 20 kB POST is sent once");
    for row in &table {
        assert!(
            page.contains(row.as_str()),
            "docs/src/haproxy.md lacks the row {row}"
        );
    }
}
