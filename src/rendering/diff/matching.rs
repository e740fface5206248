//! Which operation of the head is which of the base: by `operationId` first, then by
//! method and path template with parameter names set aside (`/orders/{id}` and
//! `/orders/{orderId}` are the same operation).

use foldhash::{HashMap, HashMapExt};

use crate::input::model::Api;

/// A pair of operation indices; one side is `None` for an added or removed operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pair {
    pub base: Option<usize>,
    pub head: Option<usize>,
}

/// `/orders/{orderId}/items/{id}` → `/orders/{}/items/{}`.
pub(crate) fn template(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut depth = 0usize;
    for c in path.chars() {
        match c {
            '{' => {
                if depth == 0 {
                    out.push('{');
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push('}');
                }
            }
            _ if depth > 0 => {}
            c => out.push(c),
        }
    }
    out
}

/// Pairs every operation of both versions: the head's in order (matched or added),
/// then the base's that the head lacks (removed).
pub(crate) fn pair(base: &Api, head: &Api) -> Vec<Pair> {
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    let mut by_route: HashMap<(&str, String), usize> = HashMap::new();
    for (i, op) in base.operations.iter().enumerate() {
        if let Some(id) = op.operation_id.as_deref() {
            by_id.entry(id).or_insert(i);
        }
        by_route
            .entry((op.method.as_str(), template(&op.path)))
            .or_insert(i);
    }
    let mut taken = vec![false; base.operations.len()];
    let mut pairs = Vec::with_capacity(head.operations.len());
    // operationIds first, so that a moved operation is not taken by its old route.
    let mut matched: Vec<Option<usize>> = head
        .operations
        .iter()
        .map(|op| {
            let i = *by_id.get(op.operation_id.as_deref()?)?;
            (!taken[i]).then(|| {
                taken[i] = true;
                i
            })
        })
        .collect();
    for (h, op) in head.operations.iter().enumerate() {
        if matched[h].is_none()
            && let Some(&i) = by_route.get(&(op.method.as_str(), template(&op.path)))
            && !taken[i]
        {
            taken[i] = true;
            matched[h] = Some(i);
        }
        pairs.push(Pair {
            base: matched[h],
            head: Some(h),
        });
    }
    for (i, taken) in taken.iter().enumerate() {
        if !taken {
            pairs.push(Pair {
                base: Some(i),
                head: None,
            });
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_names_do_not_make_another_route() {
        assert_eq!(
            template("/orders/{orderId}/items/{id}"),
            "/orders/{}/items/{}"
        );
        assert_eq!(template("/a/{b}.json"), "/a/{}.json");
        assert_eq!(template("/plain"), "/plain");
        assert_eq!(template("/x/{a{b}c}/y"), "/x/{}/y");
    }
}
