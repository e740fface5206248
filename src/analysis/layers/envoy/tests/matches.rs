//! Route matches: path specifiers and method matchers.

use super::*;

#[test]
fn path_specifiers_and_method_matchers() {
    let route = |entry: &str| {
        let (layers, _) = read_ok(&rds(
            "",
            &format!("  - match: {entry}\n    route: {{ cluster: c }}\n"),
        ));
        layers[0].routes[0].matches.clone()
    };
    let takes = |entry: &str, path: &str, method: &str| {
        route(entry).iter().any(|m| {
            path_matches(&m.path, "", path) && m.method.as_ref().is_none_or(|mm| mm.matches(method))
        })
    };
    assert!(takes("{ prefix: /pay }", "/payments/{id}", "DELETE"));
    assert!(!takes("{ path: /payments }", "/payments/{id}", "GET"));
    assert!(takes(
        "{ safe_regex: { google_re2: {}, regex: '/payments/\\d+' } }",
        "/payments/{id}",
        "GET"
    ));
    assert!(takes(
        "{ path_separated_prefix: /payments }",
        "/payments/{id}",
        "GET"
    ));
    assert!(!takes(
        "{ path_separated_prefix: /pay }",
        "/payments",
        "GET"
    ));
    assert!(matches!(
        route("{ path_separated_prefix: /p }")[0].path,
        PathMatch::SegmentPrefix(_)
    ));
    let template = "{ path_match_policy: { name: envoy.path.match.uri_template.uri_template_matcher, typed_config: { '@type': type.googleapis.com/envoy.extensions.path.match.uri_template.v3.UriTemplateMatchConfig, path_template: '/payments/{id}' } } }";
    assert!(takes(template, "/payments/{paymentId}", "GET"));
    assert!(!takes(template, "/payments/{id}/refunds", "GET"));
    // Methods, in the newer and the older spellings.
    let on =
        |matcher: &str| format!("{{ prefix: /, headers: [{{ name: ':method', {matcher} }}] }}");
    assert!(takes(&on("string_match: { exact: GET }"), "/a", "GET"));
    assert!(!takes(&on("string_match: { exact: GET }"), "/a", "POST"));
    assert!(takes(
        &on("string_match: { exact: get, ignore_case: true }"),
        "/a",
        "GET"
    ));
    assert!(takes(&on("string_match: { prefix: P }"), "/a", "PATCH"));
    assert!(takes(
        &on("string_match: { safe_regex: { regex: 'P(UT|OST)' } }"),
        "/a",
        "PUT"
    ));
    assert!(takes(&on("exact_match: DELETE"), "/a", "DELETE"));
    assert!(takes(&on("prefix_match: DEL"), "/a", "DELETE"));
    assert!(takes(
        &on("safe_regex_match: { regex: 'GET|HEAD' }"),
        "/a",
        "HEAD"
    ));
    assert!(takes(&on("suffix_match: CH"), "/a", "PATCH"));
    // Inverted: every method but GET; absent or numeric: no request at all.
    let not_get = on("exact_match: GET, invert_match: true");
    assert!(takes(&not_get, "/a", "POST") && !takes(&not_get, "/a", "GET"));
    assert!(!takes(&on("present_match: false"), "/a", "GET"));
    assert!(takes(
        &on("present_match: false, invert_match: true"),
        "/a",
        "GET"
    ));
    assert!(!takes(
        &on("range_match: { start: 0, end: 9 }"),
        "/a",
        "GET"
    ));
    // Several matchers on the method must all match.
    let writes = "{ prefix: /, headers: [{ name: ':method', exact_match: GET, invert_match: true }, { name: ':method', exact_match: HEAD, invert_match: true }, { name: x-other, exact_match: v }] }";
    assert!(
        takes(writes, "/a", "POST") && !takes(writes, "/a", "HEAD") && !takes(writes, "/a", "GET")
    );
    assert!(matches!(route(writes)[0].method, Some(StringMatch::All(_))));
    // CONNECT requests only; a path that ignores case is tried as written and in lower case.
    assert!(
        takes("{ connect_matcher: {} }", "/x", "CONNECT")
            && !takes("{ connect_matcher: {} }", "/x", "GET")
    );
    let insensitive = "{ prefix: /Payments, case_sensitive: false }";
    assert!(takes(insensitive, "/payments", "GET") && takes(insensitive, "/Payments", "GET"));
    assert!(!takes("{ prefix: /Payments }", "/payments", "GET"));
}
