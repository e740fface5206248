//! `retrylint simulate SPEC [-p POLICY]... [--host NAME]... [--operation SELECTOR]
//! [scenario flags]`: the flags, which operations are simulated, the retry loops each goes
//! through, and where the output goes.
//!
//! Without `--operation`, every operation the effective policy retries
//! (`maxAttempts > 1`) is simulated, the clients spread over them in turn; with it, every
//! operation the selector matches, retried or not.
//!
//! `-p` takes what `check` takes: the policy, and files or folders of proxies, gateways and
//! meshes. Each operation goes through the client's loop, then, at each position in front
//! of the backend (edge, gateway, mesh), the loop of the route that
//! [`Bound::chain`](crate::analysis::layers::chain::Bound::chain) picks there (the one with the most
//! attempts).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use super::InputArgs;
use crate::analysis::check::{Analysis, analyze_layers};
use crate::analysis::layers::Position;
use crate::error::InputError;
use crate::input::policy::{Effective, Selector, resolve};
use crate::rendering::simulate::loops::LayerLoop;
use crate::rendering::simulate::output::{self, Report};
use crate::rendering::simulate::scenario::{Scenario, ScenarioFlags};
use crate::rendering::simulate::scenario_file::ScenarioFile;
use crate::rendering::simulate::variant::Variant;
use crate::rendering::simulate::{MAX_ATTEMPTS, Target, html, simulate};

/// The flags of `retrylint simulate`.
#[derive(Debug, clap::Args)]
pub(crate) struct SimulateArgs {
    /// The description.
    #[arg(value_name = "SPEC")]
    spec: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// Simulate the operations this selector matches (default: every retried operation).
    #[arg(long, value_name = "SELECTOR")]
    operation: Option<String>,
    /// The scenario written in a file (`scenario:` with the flags' names); flags win.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// How many calls the clients make, one each [default: 1000].
    #[arg(long, value_name = "N")]
    clients: Option<u32>,
    /// How the calls arrive: uniform:WINDOW (spread over a window) or poisson:RATE/s
    /// [default: uniform:60s].
    #[arg(long, value_name = "PROCESS")]
    arrival: Option<String>,
    /// Requests per second the server answers; beyond that it answers 503 [default: 200/s].
    #[arg(long, value_name = "RATE")]
    capacity: Option<String>,
    /// A fault window, SIGNAL@FROM..TO: 503@10s..40s, '429 retry-after=5s@0s..30s',
    /// connect-failure@…, timeout-before-processing@…, timeout-after-processing@…
    #[arg(long = "fault", value_name = "SIGNAL@FROM..TO")]
    faults: Vec<String>,
    /// The round trip of an answered request [default: 50ms].
    #[arg(long, value_name = "DURATION")]
    latency: Option<String>,
    /// The random seed: the same seed gives the same output [default: 1].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Also run the policy with fields changed, side by side: jitter=none, maxAttempts=1,
    /// keyHeader=Idempotency-Key, deadline=10s, honorRetryAfter=false, … A variant changes
    /// the client's retry loop only, not the layers' in front of the backend.
    #[arg(long = "compare", value_name = "KEY=VALUE")]
    compare: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SimulateFormat::Text)]
    format: SimulateFormat,
    /// Write the output to a file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

/// What `simulate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SimulateFormat {
    /// A summary table and load sparklines.
    Text,
    /// A versioned JSON document.
    Json,
    /// One self-contained page with an SVG chart of the load.
    Html,
}

/// Runs `retrylint simulate`; exit code 0, or the input errors (exit code 2).
pub(crate) fn run(args: SimulateArgs) -> Result<ExitCode, Vec<InputError>> {
    let mut errors = Vec::new();
    let file = match &args.scenario {
        Some(path) => ScenarioFile::load(path).map_err(|e| vec![e])?,
        None => ScenarioFile::default(),
    };
    let faults: Vec<String> = file.faults.iter().chain(&args.faults).cloned().collect();
    let compare: Vec<String> = file.compare.iter().chain(&args.compare).cloned().collect();
    let pick = |flag: &Option<String>, from_file: &Option<String>, default: &'static str| {
        flag.clone()
            .or_else(|| from_file.clone())
            .unwrap_or_else(|| default.to_string())
    };
    let arrival = pick(&args.arrival, &file.arrival, "uniform:60s");
    let capacity = pick(&args.capacity, &file.capacity, "200/s");
    let latency = pick(&args.latency, &file.latency, "50ms");
    let scenario = Scenario::from_flags(&ScenarioFlags {
        clients: args.clients.or(file.clients).unwrap_or(1_000),
        arrival: &arrival,
        capacity: &capacity,
        faults: &faults,
        latency: &latency,
        seed: args.seed.or(file.seed).unwrap_or(1),
    })
    .map_err(|mut e| errors.append(&mut e))
    .ok();
    let variants: Vec<Variant> = compare
        .iter()
        .filter_map(|text| Variant::parse(text).map_err(|e| errors.push(e)).ok())
        .collect();
    let selector = match &args.operation {
        Some(text) => Selector::parse(text)
            .map_err(|why| errors.push(InputError::new(format!("bad --operation `{text}`: {why}"))))
            .ok(),
        None => None,
    };
    let Some(scenario) = scenario.filter(|_| errors.is_empty()) else {
        return Err(errors);
    };
    let (targets, operations) =
        targets(&args, selector.as_ref(), args.operation.as_deref()).map_err(|e| vec![e])?;
    let outcomes = simulate(&scenario, &targets, &variants);
    let report = Report {
        scenario,
        operations,
        loops: targets.iter().map(Target::loops).collect(),
        outcomes,
    };
    let text = match args.format {
        SimulateFormat::Text => output::text(&report),
        SimulateFormat::Json => output::json(&report),
        SimulateFormat::Html => html::render(&report),
    };
    crate::rendering::output::write::to_file_or_stdout(args.output.as_deref(), &text)
        .map_err(|e| vec![e])?;
    Ok(ExitCode::SUCCESS)
}

/// The operations to simulate with their effective policies, and their headings.
fn targets(
    args: &SimulateArgs,
    selector: Option<&Selector>,
    selector_text: Option<&str>,
) -> Result<(Vec<Target>, Vec<String>), InputError> {
    let options = args.input.load_options();
    let (_, policy, layers) = args.input.policy_for(&args.spec)?;
    let mut analysis = analyze_layers(&args.spec, policy.as_ref(), &layers, &options)?;
    // Without a policy file, the description's own `x-retry-policy` still applies.
    let effective = if policy.is_some() {
        std::mem::take(&mut analysis.effective)
    } else {
        resolve(&analysis.api, None, &analysis.sources)?.0
    };
    let mut targets = Vec::new();
    let mut headings = Vec::new();
    for (index, (op, policy)) in analysis.api.operations.iter().zip(effective).enumerate() {
        let chosen = match selector {
            Some(s) => s.matches(op),
            None => policy.is_retried(),
        };
        if !chosen {
            continue;
        }
        if policy.max_attempts() > MAX_ATTEMPTS {
            return Err(InputError::new(format!(
                "{} makes up to {} attempts: simulate handles at most {MAX_ATTEMPTS}",
                op.key(),
                policy.max_attempts()
            ))
            .with_help("simulate it with --compare maxAttempts=N"));
        }
        let b = crate::analysis::plan::schedule::backoff_of(&policy);
        if b.cap_ms < b.base_ms || b.multiplier < 1.0 {
            eprintln!(
                "note: {}: backoff.cap is below backoff.base or backoff.multiplier below 1: \
                 every retry stops with invalid-delay (see invalid-backoff)",
                op.key().escape_debug()
            );
        }
        headings.push(op.title());
        if let Some(sdk) = client_layer(&analysis, index, &policy) {
            eprintln!(
                "note: {}: {} retries it more than the policy; simulate runs the policy as the client",
                op.key().escape_debug(),
                sdk.escape_debug()
            );
        }
        targets.push(Target {
            operation: op.key(),
            layers: layer_loops(&analysis, index, &policy),
            policy,
        });
    }
    if targets.is_empty() {
        return Err(match selector_text {
            Some(text) => {
                let keys: Vec<String> = analysis
                    .api
                    .operations
                    .iter()
                    .map(super::super::input::model::Operation::key)
                    .collect();
                let ids = analysis
                    .api
                    .operations
                    .iter()
                    .filter_map(|o| o.operation_id.as_deref());
                let error = InputError::new(format!("--operation `{text}` matches no operation"));
                match crate::error::did_you_mean(text, keys.iter().map(String::as_str).chain(ids)) {
                    Some(near) => error.with_help(format!("did you mean `{near}`?")),
                    None => error.with_help("`retrylint plan` lists the operations"),
                }
            }
            None => {
                InputError::new("the policy retries no operation: there is nothing to simulate")
                    .with_help(
                        "name one with --operation SELECTOR, as in --operation \"POST /orders\"",
                    )
            }
        });
    }
    Ok((targets, headings))
}

/// The loops of the layers in front of the backend for operation `index`, outermost
/// first: at each position, the route that
/// [`Bound::chain`](crate::analysis::layers::chain::Bound::chain) picks.
pub(crate) fn layer_loops(analysis: &Analysis, index: usize, client: &Effective) -> Vec<LayerLoop> {
    let bound = &analysis.layers;
    let Some(op) = analysis.api.operations.get(index) else {
        return Vec::new();
    };
    let routes = bound
        .per_operation
        .get(index)
        .map_or(&[][..], Vec::as_slice);
    bound
        .chain(index, Some(client))
        .hops
        .iter()
        .filter(|hop| hop.position != Position::Client)
        .filter_map(|hop| {
            let (layer, route) = hop.layer?;
            let k = routes
                .iter()
                .position(|(l, binding)| (*l, binding.route) == (layer, route))?;
            let policy = analysis.layer_effective.get(index)?.get(k)?;
            let l = bound.layers.get(layer)?;
            let r = l.routes.get(route)?;
            let method_retried = r.retries_method(op.method.as_str());
            Some(LayerLoop::new(
                l.position,
                l.name.to_string(),
                r.name.to_string(),
                op.key(),
                policy,
                method_retried,
            ))
        })
        .collect()
}

/// The layer at the client's position (the SDK) that retries operation `index` more than
/// the policy, if any: simulate runs the policy all the same.
fn client_layer(analysis: &Analysis, index: usize, client: &Effective) -> Option<String> {
    let chain = analysis.layers.chain(index, Some(client));
    let hop = chain
        .hops
        .first()
        .filter(|h| h.position == Position::Client)?;
    let (layer, _) = hop.layer?;
    analysis
        .layers
        .layers
        .get(layer)
        .map(|l| l.name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::check::{analyze, load_policy};
    use crate::analysis::layers::bind::Service;
    use crate::analysis::layers::chain::Bound;
    use crate::analysis::layers::{Format, Layer, Route};
    use crate::input::load::LoadOptions;
    use crate::location::Loc;
    use crate::rendering::simulate::scenario::{Capacity, Fault, Scenario};
    use crate::rendering::simulate::{loops, simulate};

    fn here() -> Loc {
        Loc::new(0, "", crate::input::source::Span::default())
    }

    /// A layer with one route for every request: `attempts`, retrying 503.
    fn layer(position: Position, name: &str, attempts: i64) -> Layer {
        Layer {
            format: Format::Istio,
            position,
            name: name.into(),
            loc: here(),
            hosts: Vec::new(),
            routes: vec![Route {
                loc: here(),
                name: "http[0]".into(),
                matches: Vec::new(),
                policy: crate::rendering::simulate::loops::tests::retrying_503(attempts),
                implicit: false,
                budget_only: false,
                retried_methods: None,
                unsupported: Vec::new(),
            }],
            budget: None,
        }
    }

    /// The shop's `listOrders` with layers bound as `analyze_layers` binds them.
    fn shop_with(layers: Vec<Layer>) -> (Analysis, usize) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shop");
        let options = LoadOptions::default();
        let policy = load_policy(&root.join("retry-policy.yaml"), &options).unwrap();
        let mut analysis = analyze(&root.join("openapi.yaml"), Some(&policy), &options).unwrap();
        analysis.layers = Bound::new(
            layers,
            &analysis.api,
            &Service::default(),
            &analysis.sources,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        analysis.layer_effective = (0..analysis.api.operations.len())
            .map(|op| {
                analysis.layers.per_operation[op]
                    .iter()
                    .map(|(l, binding)| {
                        let client = analysis.effective.get(op);
                        analysis.layers.effective(
                            *l,
                            binding.route,
                            &analysis.api.operations[op],
                            client,
                            analysis.contracts.get(op),
                        )
                    })
                    .collect()
            })
            .collect();
        let index = analysis
            .api
            .operations
            .iter()
            .position(|op| op.operation_id.as_deref() == Some("listOrders"))
            .unwrap();
        (analysis, index)
    }

    #[test]
    fn each_position_in_front_of_the_backend_adds_its_worst_loop() {
        let (analysis, index) = shop_with(vec![
            layer(Position::Mesh, "Istio VirtualService orders", 2),
            layer(Position::Client, "x-speakeasy-retries", 5),
            layer(Position::Mesh, "Linkerd ServiceProfile orders", 4),
            layer(Position::Gateway, "Gateway API HTTPRoute shop", 3),
        ]);
        let policy = analysis.effective[index].clone();
        let layers = layer_loops(&analysis, index, &policy);
        let picked: Vec<(Position, &str, i64)> = layers
            .iter()
            .map(|l| (l.position, l.layer.as_str(), l.attempts))
            .collect();
        assert_eq!(
            picked,
            [
                (Position::Gateway, "Gateway API HTTPRoute shop", 3),
                (Position::Mesh, "Linkerd ServiceProfile orders", 4),
            ]
        );
        // The SDK retries more than the policy: said, and left out.
        assert_eq!(
            client_layer(&analysis, index, &policy).as_deref(),
            Some("x-speakeasy-retries")
        );
        let target = Target {
            operation: analysis.api.operations[index].key(),
            policy,
            layers,
        };
        assert_eq!(
            loops::text(&target.loops()),
            "client 3 × gateway 3 × mesh 4"
        );
        // One call against a backend that always answers 503: 3 × 3 × 4 requests; a
        // variant changes the client's loop only.
        let scenario = Scenario {
            clients: 1,
            faults: vec![Fault::parse("503@0s..1h").unwrap()],
            capacity: Capacity::Unlimited,
            ..Scenario::default()
        };
        let variants = [Variant::parse("maxAttempts=1").unwrap()];
        let outcomes = simulate(&scenario, std::slice::from_ref(&target), &variants);
        let requests: Vec<u64> = outcomes.iter().map(|o| o.requests).collect();
        assert_eq!(requests, [36, 12]);
    }

    #[test]
    fn without_layers_the_client_loop_is_alone() {
        let (analysis, index) = shop_with(Vec::new());
        let policy = analysis.effective[index].clone();
        assert!(layer_loops(&analysis, index, &policy).is_empty());
        assert_eq!(client_layer(&analysis, index, &policy), None);
    }
}
