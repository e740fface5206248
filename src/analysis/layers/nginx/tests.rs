//! Tests of the NGINX importer: attempts from the `upstream` group and
//! `proxy_next_upstream_tries`, conditions and their inheritance, the method guard of
//! `non_idempotent`, location matches and their order, and located values.

use super::*;
use crate::analysis::layers::test_support::{layers, loc, note, value};

fn conf(locations: &str, http: &str) -> String {
    format!(
        "events {{}}\nhttp {{\n{http}\nupstream two {{ server 127.0.0.1:1; server 127.0.0.1:2; }}\n\
         upstream three {{ server a:1; server b:1; server c:1 backup; }}\n\
         server {{\nserver_name api.example.com;\n{locations}\n}}\n}}\n"
    )
}

fn routes(text: &str) -> (Vec<Route>, String) {
    let (layers, _) = layers("nginx.conf", text).unwrap();
    assert_eq!(layers.len(), 1);
    assert_eq!(layers[0].hosts, ["api.example.com"]);
    assert_eq!(layers[0].format, Format::Nginx);
    (layers[0].routes.clone(), text.to_string())
}

#[test]
fn attempts_are_the_servers_of_the_group_bounded_by_tries() {
    let text = conf(
        "location /a { proxy_pass http://three; }\n\
         location /b { proxy_next_upstream_tries 2; proxy_pass http://three/x; }\n\
         location /c { proxy_next_upstream_tries 0; proxy_pass http://two; }\n\
         location /d { proxy_pass http://127.0.0.1:9; }\n\
         location /e { proxy_next_upstream off; proxy_pass http://three; }\n\
         location /f { proxy_next_upstream_tries 9; proxy_pass http://two; }\n",
        "",
    );
    let (routes, text) = routes(&text);
    let attempts: Vec<i64> = routes
        .iter()
        .map(|r| value(&r.policy.max_attempts))
        .collect();
    // Prefixes are ordered longest first, then in file order.
    assert_eq!(attempts, [3, 2, 2, 1, 1, 2]);
    let tries = loc(&routes[1].policy.max_attempts);
    assert_eq!(&text[tries.span.range()], "proxy_next_upstream_tries 2;");
    assert!(
        note(&routes[0].policy.max_attempts)
            .unwrap()
            .contains("3 servers")
    );
    assert!(
        note(&routes[3].policy.max_attempts)
            .unwrap()
            .contains("single server")
    );
    let off = loc(&routes[4].policy.max_attempts);
    assert_eq!(&text[off.span.range()], "proxy_next_upstream off;");
}

#[test]
fn conditions_default_and_inherit_from_http_and_server() {
    let text = conf(
        "location /a { proxy_pass http://two; }\n\
         location /b { proxy_next_upstream http_429 non_idempotent; proxy_pass http://two; }\n",
        "proxy_next_upstream error http_503;",
    );
    let (routes, text) = routes(&text);
    let on = value(&routes[0].policy.retry_on);
    let signals: Vec<Signal> = on.iter().map(|s| s.value).collect();
    assert_eq!(
        signals,
        [Signal::ConnectFailure, Signal::Reset, Signal::Status(503)]
    );
    let at = loc(&routes[0].policy.retry_on);
    assert_eq!(
        &text[at.span.range()],
        "proxy_next_upstream error http_503;"
    );
    assert!(!routes[0].retries_method("POST"));
    assert!(!routes[0].retries_method("PATCH"));
    assert!(routes[0].retries_method("PUT"));
    let own: Vec<Signal> = value(&routes[1].policy.retry_on)
        .iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(own, [Signal::Status(429)]);
    assert!(routes[1].retries_method("POST"));

    let (plain, _) = self::routes(&conf("location / { proxy_pass http://two; }", ""));
    let default = note(&plain[0].policy.retry_on).unwrap();
    assert!(default.contains("error timeout"), "{default}");
    let signals: Vec<Signal> = value(&plain[0].policy.retry_on)
        .iter()
        .map(|s| s.value)
        .collect();
    assert_eq!(
        signals,
        [Signal::ConnectFailure, Signal::Reset, Signal::Timeout]
    );
}

#[test]
fn locations_match_like_nginx() {
    let text = conf(
        "location / { proxy_pass http://two; }\n\
         location ~* \\.json$ { proxy_pass http://two; }\n\
         location = /orders { proxy_pass http://two; }\n\
         location ^~ /static/ { return 404; }\n\
         location /orders { location /orders/special { proxy_pass http://two; } }\n\
         location @fallback { proxy_pass http://two; }\n",
        "",
    );
    let (routes, _) = routes(&text);
    let names: Vec<String> = routes.iter().map(|r| r.name.to_string()).collect();
    assert_eq!(
        names,
        [
            "location = /orders",
            "location ^~ /static/",
            "location ~* \\.json$",
            "location /orders/special",
            "location /orders",
            "location /",
        ]
    );
    let PathMatch::Regex(regex) = &routes[2].matches[0].path else {
        panic!("a regex location");
    };
    regex.compile().unwrap();
    assert!(regex.is_match("/orders/1.JSON"));
    assert!(!regex.is_match("/orders/1.json/x"));
    // A location that answers itself makes one attempt.
    assert_eq!(value(&routes[1].policy.max_attempts), 1);
}

#[test]
fn bad_values_are_located() {
    for (bad, message) in [
        (
            "proxy_next_upstream error sometimes;",
            "not a proxy_next_upstream condition",
        ),
        ("proxy_next_upstream_tries many;", "whole number"),
        ("proxy_next_upstream_timeout soon;", "takes a time"),
    ] {
        let text = conf("location / { proxy_pass http://two; }", bad);
        let error = layers("nginx.conf", &text).unwrap_err();
        assert!(error.message.contains(message), "{}", error.message);
    }
}

#[test]
fn a_conf_d_file_of_servers_alone_is_read() {
    let text =
        "upstream u { server a:1; server b:1; }\nserver { location / { proxy_pass http://u; } }\n";
    let (layers, _) = layers("default.conf", text).unwrap();
    assert_eq!(layers.len(), 1);
    assert_eq!(value(&layers[0].routes[0].policy.max_attempts), 2);
}

#[test]
fn only_nginx_files_are_read_as_nginx() {
    use std::path::Path;
    let nginx = "http {\n  server {\n  }\n}\n";
    assert!(crate::analysis::layers::detect::is_nginx_conf(
        Path::new("nginx.conf"),
        nginx
    ));
    assert!(!crate::analysis::layers::detect::is_nginx_conf(
        Path::new("nginx.yaml"),
        nginx
    ));
    assert!(!crate::analysis::layers::detect::is_nginx_conf(
        Path::new("app.conf"),
        "[section]\nkey = value\n"
    ));
    assert!(!crate::analysis::layers::detect::is_nginx_conf(
        Path::new("app.conf"),
        "{\"server\": 1}"
    ));
}

#[test]
fn read_timeouts_are_located_and_next_upstream_timeout_is_no_deadline() {
    let text = conf(
        "location /a { proxy_pass http://two; }\n\
         location /b { proxy_read_timeout 2s; proxy_next_upstream_timeout 0; proxy_pass http://two; }\n",
        "proxy_next_upstream_timeout 10s;",
    );
    let (routes, text) = routes(&text);
    // nginx never cuts an attempt at proxy_next_upstream_timeout: it is no deadline.
    assert!(routes[0].policy.deadline.is_none());
    let read = loc(&routes[1].policy.per_attempt_timeout);
    assert_eq!(&text[read.span.range()], "proxy_read_timeout 2s;");
    assert!(
        note(&routes[0].policy.per_attempt_timeout)
            .unwrap()
            .contains("60s")
    );
    assert!(routes[1].policy.deadline.is_none());
    assert_eq!(
        value(&routes[1].policy.per_attempt_timeout),
        Duration::from_millis(2_000)
    );
}
