//! What each HTTP method promises about repeating it: the "Safe" and "Idempotent"
//! columns of the IANA HTTP Method Registry
//! (<https://www.iana.org/assignments/http-methods/http-methods.xhtml>), whose entries
//! come from RFC 9110 §9 and the RFCs RFC 7237 registers (WebDAV's RFC 4918, DeltaV's
//! RFC 3253, …).
//!
//! A method the registry does not list promises nothing: it is neither safe nor
//! idempotent. Method names are case-sensitive (RFC 9110 §9.1), so `copy` is not `COPY`.

/// One method of the registry: whether it is safe and whether it is idempotent.
struct Registered {
    name: &'static str,
    safe: bool,
    idempotent: bool,
}

const fn entry(name: &'static str, safe: bool, idempotent: bool) -> Registered {
    Registered {
        name,
        safe,
        idempotent,
    }
}

/// The registry, in its order (`*` is reserved and left out). `QUERY`
/// (draft-ietf-httpbis-safe-method-w-body) is safe and idempotent, like `GET`.
const REGISTRY: &[Registered] = &[
    entry("ACL", false, true),
    entry("BASELINE-CONTROL", false, true),
    entry("BIND", false, true),
    entry("CHECKIN", false, true),
    entry("CHECKOUT", false, true),
    entry("CONNECT", false, false),
    entry("COPY", false, true),
    entry("DELETE", false, true),
    entry("GET", true, true),
    entry("HEAD", true, true),
    entry("LABEL", false, true),
    entry("LINK", false, true),
    entry("LOCK", false, false),
    entry("MERGE", false, true),
    entry("MKACTIVITY", false, true),
    entry("MKCALENDAR", false, true),
    entry("MKCOL", false, true),
    entry("MKREDIRECTREF", false, true),
    entry("MKWORKSPACE", false, true),
    entry("MOVE", false, true),
    entry("OPTIONS", true, true),
    entry("ORDERPATCH", false, true),
    entry("PATCH", false, false),
    entry("POST", false, false),
    entry("PRI", true, true),
    entry("PROPFIND", true, true),
    entry("PROPPATCH", false, true),
    entry("PUT", false, true),
    entry("QUERY", true, true),
    entry("REBIND", false, true),
    entry("REPORT", true, true),
    entry("SEARCH", true, true),
    entry("TRACE", true, true),
    entry("UNBIND", false, true),
    entry("UNCHECKOUT", false, true),
    entry("UNLINK", false, true),
    entry("UNLOCK", false, true),
    entry("UPDATE", false, true),
    entry("UPDATEREDIRECTREF", false, true),
    entry("VERSION-CONTROL", false, true),
];

fn registered(name: &str) -> Option<&'static Registered> {
    REGISTRY.iter().find(|m| m.name == name)
}

/// Whether the registry calls the method safe (a request asks for no change).
pub(super) fn is_safe(name: &str) -> bool {
    registered(name).is_some_and(|m| m.safe)
}

/// Whether the registry calls the method idempotent (repeating it has the effect of
/// sending it once).
pub(super) fn is_idempotent(name: &str) -> bool {
    registered(name).is_some_and(|m| m.idempotent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webdav_methods_follow_the_registry() {
        for idempotent in [
            "COPY",
            "MOVE",
            "MKCOL",
            "PROPPATCH",
            "UNLOCK",
            "PUT",
            "DELETE",
        ] {
            assert!(
                is_idempotent(idempotent) && !is_safe(idempotent),
                "{idempotent}"
            );
        }
        for neither in ["LOCK", "POST", "PATCH", "CONNECT", "PURGE", "copy"] {
            assert!(!is_idempotent(neither) && !is_safe(neither), "{neither}");
        }
        assert!(is_safe("PROPFIND") && is_safe("SEARCH") && is_safe("QUERY"));
    }

    #[test]
    fn every_safe_method_is_idempotent_and_the_table_is_sorted() {
        assert!(REGISTRY.iter().all(|m| !m.safe || m.idempotent));
        assert!(REGISTRY.windows(2).all(|w| w[0].name < w[1].name));
    }
}
