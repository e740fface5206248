//! `route-matches-nothing`: layer settings that apply to none of the description's
//! operations.

use std::collections::BTreeMap;

use super::{Rule, RunContext};
use crate::analysis::rules::finding::{Finding, Label};
use crate::analysis::layers::Format;

declare_rule!(
    /// A route of a layer that takes none of the description's operations, a layer file
    /// none of whose objects serves the description's hosts, or a `layers:` entry of the
    /// policy that places no layer.
    RouteMatchesNothing,
    "route-matches-nothing",
    Warning,
    Layers,
    "a layer's route, file or position entry applies to no operation"
);

impl Rule for RouteMatchesNothing {
    fn check_run(&self, cx: &RunContext<'_>, out: &mut Vec<Finding>) {
        let bound = cx.layers;
        let description = cx.sources[cx.api.root_file].name();
        // Files of which no object serves the service: one finding per file.
        let mut by_file: BTreeMap<usize, (bool, usize)> = BTreeMap::new();
        for (index, layer) in bound.layers.iter().enumerate() {
            if layer.format == Format::Speakeasy {
                continue;
            }
            let slot = by_file.entry(layer.loc.file).or_insert((false, index));
            slot.0 |= bound.serves[index];
        }
        for (file, (serves, first)) in by_file {
            if serves {
                continue;
            }
            let layer = &bound.layers[first];
            out.push(
                Finding::new(
                    Self::META.id,
                    format!(
                        "no object in {} serves the hosts of {description}: its retries were not checked",
                        cx.sources[file].name()
                    ),
                    Label::new(&layer.loc, format!("{} serves {}", layer.name, crate::analysis::layers::names::shown_hosts(&layer.hosts))),
                )
                .help("name the host the mesh or gateway knows the service by: `service: {hosts: [NAME]}` in the policy, or --host NAME"),
            );
        }
        for (index, layer) in bound.layers.iter().enumerate() {
            if !bound.serves[index] || layer.format == Format::Speakeasy {
                continue;
            }
            for (route, hits) in layer.routes.iter().zip(&bound.route_hits[index]) {
                if *hits > 0 {
                    continue;
                }
                out.push(
                    Finding::new(
                        Self::META.id,
                        format!(
                            "route {} of {} takes none of the operations of {description}",
                            route.name, layer.name
                        ),
                        Label::new(&route.loc, "matches no operation"),
                    )
                    .help("check the route's path and method against the description's paths and servers (the base path is part of the request path)"),
                );
            }
        }
        let Some(settings) = cx.layer_settings else {
            return;
        };
        for (setting, hits) in settings.positions.iter().zip(cx.position_hits) {
            if *hits == 0 {
                out.push(
                    Finding::new(
                        Self::META.id,
                        "this `layers` entry places no layer: no -p file or layer name matches it".to_string(),
                        Label::new(&setting.loc, "matches no layer"),
                    )
                    .help("`file` is matched against the end of a -p file's path; `name` against a layer's object name"),
                );
            }
        }
    }
}
