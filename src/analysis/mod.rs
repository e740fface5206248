//! Analysis: what the inputs mean for retrying, and the findings.
//!
//! [`contract`] is what a description alone lets any client retry safely; [`plan`] the
//! decision a client makes after each attempt; [`layers`] the retries of proxies,
//! gateways, meshes and SDKs, bound to the operations they serve; [`rules`] the checks,
//! which produce findings; [`suppress`] and [`group`] what is left of them and where one
//! fix covers many; [`fix`] the edits that resolve findings; [`check`] runs the whole of it for a description. [`init`] chooses a
//! starting policy from the same facts.
//!
//! It builds on [`crate::input`] and knows nothing of how findings are shown.

pub mod check;
pub(crate) mod contract;
pub mod fix;
pub(crate) mod group;
pub(crate) mod init;
pub mod layers;
pub mod plan;
pub mod rules;
pub(crate) mod suppress;
