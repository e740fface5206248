//! The integration tests: one binary (linking once is most of an integration test's
//! build), one module per subject. Each runs the real `retrylint` binary on real files, or
//! the library where a test reads its values. The fuzzer is a binary of its own: it puts a
//! limit on the allocator of its whole process.

mod action_support;
mod common;
#[path = "../../benches/support/hostile.rs"]
mod hostile;

mod action;
mod action_install;
mod architecture;
mod base_revision;
mod body_keys;
mod catalogue;
mod container;
mod contract;
mod contract_sources;
mod corpus;
mod diff;
mod distribution;
mod docs;
mod domain_keys;
mod effects;
mod errors;
mod files;
mod fix;
mod formats;
mod gateway_implementation;
mod generated;
mod grouping;
mod grpc_layer;
mod grpc_live;
mod haproxy;
mod haproxy_live;
mod hook;
mod infos;
mod init;
mod injection;
mod inputs;
mod k8s_edge;
mod layer_fidelity;
mod layer_inputs;
mod layer_keys;
mod layers;
mod limits;
mod model;
mod more_layers;
mod nginx_live;
mod nothing_skipped;
mod output_options;
mod plan;
mod proto;
mod proto_input;
mod proxy_fidelity;
mod pull_request;
mod read_ahead;
mod readme;
mod release;
mod report;
mod report_html;
mod rules;
mod schema;
mod sdk_layer;
mod sdk_retries;
mod server;
mod server_actions;
mod server_neovim;
mod shell;
mod simulate;
mod simulate_faults;
mod simulate_properties;
mod site;
mod suppress;
mod tricky;
mod write_failure;
