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

use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use retrylint::analysis::layers::detect::{Detected, detect, import};

use crate::common::live::{
    Counts, Running, find_program, free_port, request, retrylint_attempts, upstream,
};

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

#[test]
#[ignore = "runs the real nginx: .ci/run runs it with --include-ignored"]
fn nginx_retries_what_retrylint_reads() {
    let Some(nginx) = find_program("nginx") else {
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
    // A hang guard counted in polls, not a bound on how fast nginx starts.
    let mut polls = 0;
    while TcpStream::connect(("127.0.0.1", listen)).is_err() {
        polls += 1;
        assert!(
            polls < 1200,
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
                let status = request(
                    listen,
                    method,
                    &path,
                    if method == "POST" { "{}" } else { "" },
                );
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
