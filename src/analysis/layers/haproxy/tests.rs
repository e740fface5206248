//! Tests of the HAProxy importer: attempts from `retries` (and its default), `retry-on`
//! and `mode`, inheritance from `defaults`, `use_backend` conditions as matches, and bad
//! values located at their line.

use super::*;
use crate::analysis::layers::StringMatch;
use crate::analysis::layers::test_support::{layers, loc, note, value};

const BASE: &str = "global\n  maxconn 100\n\ndefaults\n  mode http\n  timeout server 30s\n\n";

fn routes(text: &str) -> Vec<Route> {
    let (layers, _) = layers("haproxy.cfg", text).unwrap();
    assert_eq!(layers.len(), 1, "{layers:?}");
    assert_eq!(layers[0].format, Format::Haproxy);
    layers[0].routes.clone()
}

fn signals(route: &Route) -> Vec<Signal> {
    route
        .policy
        .retry_on
        .as_ref()
        .unwrap()
        .value
        .iter()
        .map(|s| s.value)
        .collect()
}

#[test]
fn retries_are_attempts_after_the_first_and_default_to_three() {
    let text = format!(
        "{BASE}frontend web\n  bind :80\n  acl api path_beg /api/\n  use_backend api if api\n  default_backend site\n\
         backend api\n  retries 1\n  retry-on 503 empty-response\n  server a 127.0.0.1:1\n\
         backend site\n  server a 127.0.0.1:2\n"
    );
    let routes = routes(&text);
    assert_eq!(routes.len(), 2);
    assert_eq!(value(&routes[0].policy.max_attempts), 2);
    assert_eq!(
        &text[loc(&routes[0].policy.max_attempts).span.range()],
        "retries 1"
    );
    assert_eq!(signals(&routes[0]), [Signal::Status(503), Signal::Reset]);
    assert_eq!(value(&routes[1].policy.max_attempts), 4);
    assert!(
        note(&routes[1].policy.max_attempts)
            .unwrap()
            .contains("retries 3 (CONN_RETRIES)")
    );
    assert_eq!(signals(&routes[1]), [Signal::ConnectFailure]);
    assert!(
        note(&routes[1].policy.retry_on)
            .unwrap()
            .contains("retry-on conn-failure")
    );
    let timeout = value(&routes[1].policy.per_attempt_timeout);
    assert_eq!(timeout, crate::input::policy::Duration::from_millis(30_000));
    // Every method is sent again: HAProxy checks none.
    assert!(routes[0].retries_method("POST"));
}

#[test]
fn matches_follow_the_acls() {
    let text = format!(
        "{BASE}frontend web\n  bind :80\n  acl api path_beg /api/ /v2/\n  acl writes method POST PUT\n\
         acl health path /health\n  acl img path_end .png\n  acl host hdr(host) -i a.example\n\
         use_backend b if api writes\n  use_backend b if health or img\n  use_backend b if host\n\
         use_backend b if {{ path_reg ^/x/[0-9]+$ }} METH_GET\n  use_backend b unless api\n  use_backend b if FALSE\n\
         backend b\n  server a 127.0.0.1:1\n"
    );
    let routes = routes(&text);
    assert_eq!(routes.len(), 5, "FALSE takes no request");
    let first = &routes[0].matches;
    assert_eq!(first.len(), 4, "two prefixes times two methods");
    assert!(matches!(&first[0].path, PathMatch::Prefix(p) if p == "/api/"));
    assert!(matches!(&first[0].method, Some(StringMatch::Exact(m)) if m == "POST"));
    assert!(matches!(&routes[1].matches[0].path, PathMatch::Exact(p) if p == "/health"));
    assert!(matches!(&routes[1].matches[1].path, PathMatch::Regex(r) if r.is_match("/a/b.png")));
    assert_eq!(
        routes[2].matches[0].condition.as_deref(),
        Some("hdr(host) -i a.example")
    );
    let reg = &routes[3].matches;
    assert_eq!(reg.len(), 2, "METH_GET is GET and HEAD");
    assert!(
        matches!(&reg[0].path, PathMatch::Regex(r) if r.is_match("/x/12") && !r.is_match("/x/a"))
    );
    assert!(routes[4].matches[0].condition.is_some());
}

#[test]
fn settings_inherit_from_defaults_and_tcp_retries_only_connections() {
    // A proxy takes the last `defaults` above it, or the one its `from` names.
    let text = "defaults named\n  mode http\n  retries 2\n  retry-on 502\n\
                defaults\n  retries 5\n  retry-on all-retryable-errors\n\
                listen tcp\n  bind :1\n  server a 127.0.0.1:1\n\
                listen web from named\n  bind :2\n  server a 127.0.0.1:1\n  server b 127.0.0.1:2\n";
    let (layers, _) = layers("haproxy.cfg", text).unwrap();
    assert_eq!(layers.len(), 2);
    let tcp = &layers[0].routes[0];
    assert_eq!(value(&tcp.policy.max_attempts), 6);
    assert_eq!(signals(tcp), [Signal::ConnectFailure]);
    assert!(note(&tcp.policy.retry_on).unwrap().contains("mode tcp"));
    let web = &layers[1].routes[0];
    assert_eq!(value(&web.policy.max_attempts), 3);
    assert_eq!(signals(web), [Signal::Status(502)]);
}

#[test]
fn none_and_no_server_make_one_attempt() {
    let text = format!(
        "{BASE}frontend web\n  bind :80\n  use_backend empty if {{ path /e }}\n  default_backend off\n\
         backend empty\n  retries 3\nbackend off\n  retry-on none\n  server a 127.0.0.1:1\n"
    );
    let routes = routes(&text);
    assert_eq!(value(&routes[0].policy.max_attempts), 1);
    assert!(
        note(&routes[0].policy.max_attempts)
            .unwrap()
            .contains("no server")
    );
    assert_eq!(value(&routes[1].policy.max_attempts), 1);
}

#[test]
fn disable_l7_retry_leaves_its_methods_only_connection_retries() {
    let text = format!(
        "{BASE}frontend web\n  bind :80\n  use_backend w if {{ path_beg /w/ }}\n  default_backend all\n\
         backend w\n  retry-on conn-failure 503\n  http-request disable-l7-retry if METH_POST or {{ method PUT }}\n  server a 1:1\n\
         backend all\n  retry-on conn-failure 503\n  http-request disable-l7-retry\n  server a 1:1\n"
    );
    let routes = routes(&text);
    assert_eq!(routes.len(), 3);
    // POST and PUT find the first route: connection failures only, noted at the action.
    let methods: Vec<_> = routes[0]
        .matches
        .iter()
        .map(|m| {
            m.method
                .clone()
                .map(|x| x.matches("POST") || x.matches("PUT"))
        })
        .collect();
    assert_eq!(methods, [Some(true), Some(true)]);
    assert_eq!(signals(&routes[0]), [Signal::ConnectFailure]);
    let at = loc(&routes[0].policy.retry_on);
    assert!(text[at.span.range()].starts_with("http-request disable-l7-retry if"));
    assert!(
        note(&routes[0].policy.retry_on)
            .unwrap()
            .contains("disable-l7-retry")
    );
    // Every other method: the backend's own retry-on.
    assert!(routes[1].matches[0].method.is_none());
    assert_eq!(
        signals(&routes[1]),
        [Signal::ConnectFailure, Signal::Status(503)]
    );
    assert_eq!(signals(&routes[2]), [Signal::ConnectFailure]);
}

#[test]
fn bad_values_are_input_errors_at_their_line() {
    for (line, message) in [
        ("retries abc", "whole number"),
        (
            "retry-on 503 sometimes",
            "`sometimes` is not a retry-on keyword",
        ),
        ("retry-on none 503", "stands alone"),
        ("timeout server soon", "takes a time"),
        ("option redispatch x", "whole number"),
        ("mode udp", "not a mode"),
    ] {
        let text = format!("{BASE}backend b\n  {line}\n  server a 127.0.0.1:1\n");
        let error = layers("haproxy.cfg", &text).unwrap_err();
        assert!(error.message.contains(message), "{line}: {}", error.message);
    }
    let text = format!("{BASE}frontend f\n  use_backend nowhere if TRUE\n");
    let error = layers("haproxy.cfg", &text).unwrap_err();
    assert!(
        error.message.contains("named `nowhere`"),
        "{}",
        error.message
    );
    let text =
        format!("{BASE}frontend f\n  use_backend b if undeclared\nbackend b\n  server a 1:1\n");
    let error = layers("haproxy.cfg", &text).unwrap_err();
    assert!(error.message.contains("no ACL named"), "{}", error.message);
}

#[test]
fn only_haproxy_files_are_read_as_haproxy() {
    use crate::analysis::layers::detect::is_haproxy_cfg;
    use std::path::Path;
    let cfg = Path::new("haproxy.cfg");
    assert!(is_haproxy_cfg(cfg, "global\n\nfrontend web\n  bind :80\n"));
    assert!(is_haproxy_cfg(
        Path::new("lb.cfg"),
        "defaults\n  mode http\n"
    ));
    assert!(!is_haproxy_cfg(Path::new("haproxy.yaml"), "frontend web\n"));
    assert!(!is_haproxy_cfg(cfg, "[defaults]\nbackend = x\n"));
    assert!(!is_haproxy_cfg(cfg, "backend = sqlite\nlisten: 80\n"));
    assert!(!is_haproxy_cfg(
        Path::new("setup.cfg"),
        "[metadata]\nname = x\n"
    ));
}
