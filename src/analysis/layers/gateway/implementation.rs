//! Which implementation serves a Gateway API route, as the `-p` files say: a route's
//! `parentRefs` name `Gateway`s, each `Gateway` names its `GatewayClass`
//! (`spec.gatewayClassName`), and the class names the controller that implements it
//! (`spec.controllerName`).
//!
//! `Gateway` and `GatewayClass` objects carry no retry settings: they are read from every
//! `-p` file before any route (see [`crate::analysis::layers::detect::import_with`]), and a file of
//! nothing else is not a file of retry settings. They are read leniently: an object this
//! pass cannot follow only leaves the implementation unknown.
//!
//! Only what the files say is used: a route is Istio's when it has parents and every one
//! of them is a `Gateway` among the files whose class, also among the files, names one of
//! Istio's controllers. A `Service` parent (GAMMA mesh routing) or a class the files do
//! not hold leaves the implementation unknown.

use foldhash::HashMap;

use super::GROUP;
use crate::analysis::layers::k8s;
use crate::input::source::{Node, SourceFile};

/// The controllers of Istio's own GatewayClasses: `istio.io/gateway-controller` (class
/// `istio`) and `istio.io/mesh-controller` (class `istio-waypoint`), istio/istio
/// `pkg/config/constants/constants.go` (`ManagedGatewayController`,
/// `ManagedGatewayMeshController`).
const ISTIO_CONTROLLERS: [&str; 2] = ["istio.io/gateway-controller", "istio.io/mesh-controller"];

/// An implementation of Gateway API whose behaviour retrylint models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// Istio: routes become `VirtualService` routes, and get Istio's default retries.
    Istio,
}

/// The `Gateway`s and `GatewayClass`es of every `-p` file.
#[derive(Debug, Default, Clone)]
pub struct Parents {
    /// `GatewayClass` name → `spec.controllerName`.
    classes: HashMap<String, String>,
    /// (`metadata.namespace`, `metadata.name`) of each `Gateway` → `spec.gatewayClassName`.
    gateways: HashMap<(Option<String>, String), String>,
}

impl Parents {
    /// Reads the `Gateway` and `GatewayClass` objects of `files`.
    pub fn read<'a>(files: impl IntoIterator<Item = &'a SourceFile>) -> Parents {
        let mut parents = Parents::default();
        for file in files {
            let documents = file.root.as_seq().unwrap_or_default();
            for (_, object) in crate::analysis::layers::k8s_list::objects(documents) {
                parents.add(&object);
            }
        }
        parents
    }

    /// Whether a document is a `Gateway` or a `GatewayClass`.
    pub fn recognises(doc: &Node) -> bool {
        k8s::is_object(doc, GROUP, &["Gateway", "GatewayClass"])
    }

    fn add(&mut self, object: &Node) {
        if !Parents::recognises(object) {
            return;
        }
        let text = |node: &Node, key: &str| node.get(key).and_then(Node::as_str).map(String::from);
        let Some(name) = object.get("metadata").and_then(|m| text(m, "name")) else {
            return;
        };
        let Some(spec) = object.get("spec") else {
            return;
        };
        if let Some("GatewayClass") = object.get("kind").and_then(Node::as_str) {
            if let Some(controller) = text(spec, "controllerName") {
                self.classes.insert(name, controller);
            }
        } else {
            let namespace = object.get("metadata").and_then(|m| text(m, "namespace"));
            if let Some(class) = text(spec, "gatewayClassName") {
                self.gateways.insert((namespace, name), class);
            }
        }
    }

    /// The implementation of a route in `namespace` with these `parentRefs`, when every
    /// parent resolves to it.
    pub fn implementation(
        &self,
        namespace: Option<&str>,
        parent_refs: &[Node],
    ) -> Option<Implementation> {
        if parent_refs.is_empty() {
            return None;
        }
        parent_refs
            .iter()
            .all(|reference| self.is_istio_gateway(namespace, reference))
            .then_some(Implementation::Istio)
    }

    /// Whether `reference` names a `Gateway` of the files whose class is Istio's. A
    /// reference without `kind` or `group` names a `Gateway` of Gateway API's group, and
    /// one without `namespace` is in the route's own.
    fn is_istio_gateway(&self, route_namespace: Option<&str>, reference: &Node) -> bool {
        let field = |key: &str| reference.get(key).and_then(Node::as_str);
        let is_gateway = field("kind").is_none_or(|kind| kind == "Gateway")
            && field("group").is_none_or(|group| group == GROUP);
        let Some(name) = field("name").filter(|_| is_gateway) else {
            return false;
        };
        let namespace = field("namespace").or(route_namespace).map(String::from);
        self.gateways
            .get(&(namespace, name.to_string()))
            .and_then(|class| self.classes.get(class))
            .is_some_and(|controller| ISTIO_CONTROLLERS.contains(&controller.as_str()))
    }
}
