//! What the layers add up to: which routes retry each operation, each layer's effective
//! policy for it, and the attempts that reach the backend for one call.

use super::bind::{Binding, Budget, COMPILE_STEPS, Service};
use super::{Layer, Position, Route, UNBOUNDED_ATTEMPTS};
use crate::analysis::contract::Contract;
use crate::error::InputError;
use crate::input::load::Sources;
use crate::input::model::{Api, Method, Operation};
use crate::input::policy::{Effective, effect_of};
use crate::location::Loc;

/// The most steps binding may take (see [`Budget`]): for each operation, each match
/// alternative of the routes tried, after each base path of the service, with regular
/// expressions counting more (about a second at worst).
pub const MAX_BINDING_WORK: usize = 5_000_000;

/// Layers bound to one description's operations.
#[derive(Debug, Default)]
pub struct Bound {
    pub layers: Vec<Layer>,
    /// Per operation, the layers and their routes that retry it, in layer order; a layer
    /// binds several routes when the first ones take only requests with a condition
    /// ([`Binding`]), alternatives of which the worst counts.
    pub per_operation: Vec<Vec<(usize, Binding)>>,
    /// Per layer and route, how many operations the route takes.
    pub route_hits: Vec<Vec<usize>>,
    /// Per layer, whether one of its hosts names the service.
    pub serves: Vec<bool>,
    /// Per layer, the operations it serves that none of its routes takes.
    pub uncovered: Vec<Vec<usize>>,
    /// Per operation, its method (a route may retry only some methods).
    pub methods: Vec<Method>,
}

impl Bound {
    /// Binds every layer's routes to the operations of `api`. Each operation is tried
    /// against the match alternatives of the routes of every layer that serves the
    /// service, after each of its base paths, so the comparisons made are counted and
    /// bounded ([`MAX_BINDING_WORK`]): files anyone can change must not make it quadratic.
    /// Past the bound, the error is located at the layer being bound (in `sources`).
    pub fn new(
        layers: Vec<Layer>,
        api: &Api,
        service: &Service,
        sources: &Sources,
    ) -> Result<Bound, InputError> {
        let serves: Vec<bool> = layers.iter().map(|l| service.served_by(l)).collect();
        let mut budget = Budget::new(MAX_BINDING_WORK);
        // A pattern that cannot be compiled is an error, never a route that matches
        // nothing: the patterns of the layers that serve the service are compiled first,
        // each paid for from the budget.
        for (layer, _) in layers.iter().zip(&serves).filter(|(_, serves)| **serves) {
            for regex in layer.routes.iter().flat_map(Route::regexes) {
                if !regex.is_compiled() && budget.spend(COMPILE_STEPS).is_err() {
                    return Err(overrun(layer, api, service, sources));
                }
                regex.compile()?;
            }
        }
        let mut route_hits: Vec<Vec<usize>> =
            layers.iter().map(|l| vec![0; l.routes.len()]).collect();
        let mut uncovered = vec![Vec::new(); layers.len()];
        let mut per_operation = Vec::with_capacity(api.operations.len());
        for (op_index, op) in api.operations.iter().enumerate() {
            let mut hops = Vec::new();
            for (layer_index, layer) in layers.iter().enumerate() {
                if !serves[layer_index] {
                    continue;
                }
                match service.routes_for(layer, op, &mut budget) {
                    Ok(routes) if routes.is_empty() => uncovered[layer_index].push(op_index),
                    Ok(routes) => {
                        for binding in routes {
                            route_hits[layer_index][binding.route] += 1;
                            hops.push((layer_index, binding));
                        }
                    }
                    Err(_) => return Err(overrun(layer, api, service, sources)),
                }
            }
            per_operation.push(hops);
        }
        Ok(Bound {
            methods: api.operations.iter().map(|op| op.method).collect(),
            layers,
            per_operation,
            route_hits,
            serves,
            uncovered,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// The route of `layer` at `route`.
    pub fn route(&self, layer: usize, route: usize) -> &Route {
        &self.layers[layer].routes[route]
    }

    /// The chain of retry loops one call to operation `op_index` goes through.
    pub fn chain(&self, op_index: usize, client: Option<&Effective>) -> Chain {
        let mut hops: Vec<Hop> = Vec::new();
        if let Some(client) = client {
            let attempts = client.max_attempts().max(1);
            hops.push(Hop {
                position: Position::Client,
                layer: None,
                attempts,
                loc: client.policy.max_attempts.as_ref().map(|m| m.loc.clone()),
            });
        }
        for (layer, binding) in self
            .per_operation
            .get(op_index)
            .map_or(&[][..], Vec::as_slice)
        {
            let (layer, route) = (*layer, binding.route);
            let l = &self.layers[layer];
            let r = &l.routes[route];
            let method = self.methods.get(op_index).map_or("", |m| m.as_str());
            let attempts = if r.retries_method(method) {
                r.policy.max_attempts.as_ref().map_or(1, |m| m.value).max(1)
            } else {
                1
            };
            hops.push(Hop {
                position: l.position,
                layer: Some((layer, route)),
                attempts,
                loc: r.policy.max_attempts.as_ref().map(|m| m.loc.clone()),
            });
        }
        // Layers at one position are alternatives: the worst of them counts.
        hops.sort_by_key(|h| (h.position, std::cmp::Reverse(h.attempts)));
        hops.dedup_by_key(|h| h.position);
        Chain { hops }
    }

    /// Each layer's effective policy for operation `op`: the retrying from the layer's
    /// route, what the operation is and how it is protected from the client's policy (a key
    /// the client sends travels with every retry a proxy makes). The client's key protects
    /// the layer's retries only when `contract` says the operation declares it: a key the
    /// description does not declare is one the server is not known to deduplicate on, so
    /// the layer's retries are judged as unprotected (and the client's naming of it is
    /// `idempotency-key-undeclared`'s finding).
    pub fn effective(
        &self,
        layer: usize,
        route: usize,
        op: &Operation,
        client: Option<&Effective>,
        contract: Option<&Contract>,
    ) -> Effective {
        let route = self.route(layer, route);
        let mut policy = client.map(|c| c.policy.contract()).unwrap_or_default();
        let declared = |key: &crate::input::policy::Field<String>| {
            contract.is_some_and(|c| c.declares_key(op, &key.value))
        };
        if !policy.key_header.as_ref().is_some_and(declared) {
            policy.key_header = None;
        }
        policy.overlay(&route.policy);
        if !route.retries_method(op.method.as_str()) {
            let guard = route.loc.noted(format!(
                "retriable_request_headers: {} requests are not retried",
                op.method
            ));
            policy.max_attempts = Some(crate::input::policy::Spanned::new(1, guard).into());
        }
        let effect = client.map_or_else(|| effect_of(op, &policy), |c| c.effect.clone());
        Effective {
            policy,
            effect,
            description: None,
        }
    }
}

/// The error when binding runs out of steps at `layer`: located at the layer's object,
/// with what makes binding costly.
fn overrun(layer: &Layer, api: &Api, service: &Service, sources: &Sources) -> InputError {
    let alternatives: usize = layer.routes.iter().map(|r| r.matches.len().max(1)).sum();
    let message = format!(
        "binding the layers to the operations takes more than {MAX_BINDING_WORK} steps: {} has {alternatives} route match alternatives, each tried for {} operations after {} base paths (regular expressions count more); refusing",
        layer.name,
        api.operations.len(),
        service.base_paths.len(),
    );
    let error = match sources.get(layer.loc.file) {
        Some(file) => InputError::at(file, layer.loc.span, message),
        None => InputError::new(message),
    };
    error.with_help("give -p only the files of this service's mesh, gateway and proxy, or name its hosts (service.hosts, --host) so that other services' objects are left out; merge match alternatives into fewer (a prefix, one regular expression), or describe fewer servers with different base paths")
}

/// A layer's route that retries an operation, with its effective policy for it.
#[derive(Debug, Clone, Copy)]
pub struct LayerHop<'a> {
    pub layer: &'a Layer,
    pub route: &'a Route,
    pub policy: &'a Effective,
    /// What a request must carry for the route to take it (`header end-user`); `None`
    /// for ordinary requests.
    pub condition: Option<&'a str>,
}

impl LayerHop<'_> {
    /// The route for messages: `http[0]`, or `http[0] (for requests with header end-user)`.
    pub fn route_text(&self) -> String {
        route_text(self.route, self.condition)
    }
}

/// A route for messages, with the condition that selects it when there is one.
pub fn route_text(route: &Route, condition: Option<&str>) -> String {
    match condition {
        Some(condition) => format!("{} (for requests with {condition})", route.name),
        None => route.name.to_string(),
    }
}

/// The layers that retry operation `index`, each with its route and its effective policy
/// for the operation (`effective[index]`, in the order of `bound.per_operation[index]`).
pub fn hops<'a>(
    bound: &'a Bound,
    effective: &'a [Vec<Effective>],
    index: usize,
) -> impl Iterator<Item = LayerHop<'a>> {
    let bindings = bound
        .per_operation
        .get(index)
        .map_or(&[][..], Vec::as_slice);
    let policies = effective.get(index).map_or(&[][..], Vec::as_slice);
    bindings
        .iter()
        .zip(policies)
        .map(|((layer, binding), policy)| LayerHop {
            layer: &bound.layers[*layer],
            route: bound.route(*layer, binding.route),
            policy,
            condition: binding.condition.as_deref(),
        })
}

/// One retry loop on a call's way to the backend.
#[derive(Debug, Clone)]
pub struct Hop {
    pub position: Position,
    /// The layer and route; `None` for the client's retry policy.
    pub layer: Option<(usize, usize)>,
    /// Total attempts this loop makes for each request it receives.
    pub attempts: i64,
    /// Where the attempts are set (or the default is noted).
    pub loc: Option<Loc>,
}

/// The retry loops of one call, client first, one per position.
#[derive(Debug, Clone, Default)]
pub struct Chain {
    pub hops: Vec<Hop>,
}

impl Chain {
    /// Requests at the backend for one call in the worst case; `None` when a layer's
    /// retries are bounded only by a budget.
    pub fn product(&self) -> Option<u64> {
        self.hops.iter().try_fold(1u64, |total, hop| {
            if hop.attempts == UNBOUNDED_ATTEMPTS {
                None
            } else {
                Some(total.saturating_mul(u64::try_from(hop.attempts).unwrap_or(1)))
            }
        })
    }

    /// How many loops actually retry (more than one attempt).
    pub fn retrying(&self) -> usize {
        self.hops.iter().filter(|h| h.attempts > 1).count()
    }

    /// `client 3 × gateway 3 × mesh 3`: each loop's position and attempts.
    pub fn factors(&self) -> String {
        let factors: Vec<String> = self
            .hops
            .iter()
            .map(|h| format!("{} {}", h.position, attempts_text(h.attempts)))
            .collect();
        factors.join(" × ")
    }

    /// `3 × 3 × 3 = 27`, or `3 × unbounded`.
    pub fn arithmetic(&self) -> String {
        let factors: Vec<String> = self
            .hops
            .iter()
            .map(|h| attempts_text(h.attempts))
            .collect();
        match self.product() {
            Some(total) if self.hops.len() > 1 => format!("{} = {total}", factors.join(" × ")),
            Some(total) => total.to_string(),
            None => format!("{} = unbounded", factors.join(" × ")),
        }
    }
}

/// An attempt count for people: `3`, or `unbounded` for a budget-only layer.
pub fn attempts_text(attempts: i64) -> String {
    if attempts == UNBOUNDED_ATTEMPTS {
        "unbounded".to_string()
    } else {
        attempts.to_string()
    }
}
