//! The model of a gRPC description: each `rpc` of each `service` of a `.proto` file is an
//! operation `POST /package.Service/Method`, the request gRPC sends over HTTP/2 (the
//! `:path` of grpc/grpc's doc/PROTOCOL-HTTP2.md, "Path → ":path" "/" Service-Name "/"
//! {method name}", with the service's fully qualified name) — the path a GRPCRoute,
//! Istio and Envoy match, as `analysis::layers::gateway` converts a GRPCRoute's match.
//!
//! Imports are followed, under the root's rules, only to be sure they exist and do not
//! form a cycle, as protoc refuses both: the operations are those of the file checked.
//! `google/protobuf/*.proto` are the well-known files every protobuf compiler bundles;
//! they are not read.
//!
//! Places use pointers of their own, stable while lines move: `/services/S/rpcs/M` for an
//! rpc, `…/options/idempotency_level` for its option, `/imports/N` for an import.

use std::sync::Arc;

use super::super::effect::{self, Cue, CueSource, Facts, Inferred, Repeat, Written};
use super::super::{Api, Grpc, IdempotencyLevel, Method, Operation, SpecVersion};
use crate::error::{ErrorSite, InputError};
use crate::input::load::{FileId, Loader};
use crate::input::source::proto::ProtoFile;
use crate::input::source::{SourceFile, pointer};
use crate::location::Loc;

/// The well-known files of google/protobuf that protoc (and protox) bundle: an import of
/// one needs no file beside the description.
const WELL_KNOWN: &[&str] = &[
    "google/protobuf/any.proto",
    "google/protobuf/api.proto",
    "google/protobuf/compiler/plugin.proto",
    "google/protobuf/cpp_features.proto",
    "google/protobuf/descriptor.proto",
    "google/protobuf/duration.proto",
    "google/protobuf/empty.proto",
    "google/protobuf/field_mask.proto",
    "google/protobuf/go_features.proto",
    "google/protobuf/java_features.proto",
    "google/protobuf/source_context.proto",
    "google/protobuf/struct.proto",
    "google/protobuf/timestamp.proto",
    "google/protobuf/type.proto",
    "google/protobuf/wrappers.proto",
];

/// Builds the model of the `.proto` file `root`.
pub(super) fn build(
    loader: &mut Loader,
    root: FileId,
    file: &SourceFile,
    parsed: &ProtoFile,
) -> Result<Api, InputError> {
    follow_imports(loader, root)?;
    let mut operations = Vec::new();
    let mut seen = foldhash::HashMap::default();
    for service in &parsed.services {
        let full = if parsed.package.is_empty() {
            service.name.clone()
        } else {
            format!("{}.{}", parsed.package, service.name)
        };
        let service_pointer = pointer::push(&pointer::push("", "services"), &full);
        for method in &service.methods {
            let path = super::super::grpc_path(&full, &method.name);
            let op_pointer = pointer::push(&pointer::push(&service_pointer, "rpcs"), &method.name);
            let loc = Loc::new(root, op_pointer.as_str(), method.span);
            if let Some(first) = seen.insert(path.clone(), method.span) {
                return Err(InputError::at(
                    file,
                    method.span,
                    format!("`{full}` has two rpcs named `{}`", method.name),
                )
                .with_related(ErrorSite::new(file, first, "first declared here")));
            }
            if operations.len() >= loader.options().max_operations {
                return Err(InputError::at(
                    file,
                    method.span,
                    format!(
                        "the description has more than {} operations; refusing to go further",
                        loader.options().max_operations
                    ),
                )
                .with_help("raise the limit with --max-operations N"));
            }
            let idempotency = method.idempotency.map(|(level, span)| {
                let at = pointer::push(&pointer::push(&op_pointer, "options"), "idempotency_level");
                (level, Loc::new(root, at.as_str(), span))
            });
            let effect = rpc_effect(
                &loc,
                &method.name,
                idempotency.as_ref(),
                method.http.map(|(verb, span)| {
                    let at =
                        pointer::push(&pointer::push(&op_pointer, "options"), "google.api.http");
                    (verb, Loc::new(root, at.as_str(), span))
                }),
            );
            operations.push(Operation {
                method: Method::Post,
                path,
                // protoc-gen-openapiv2's operationId (grpc-gateway), `Service_Method`: the
                // name a description generated from this file gives the operation.
                operation_id: Some(format!("{}_{}", service.name, method.name)),
                // The service's full name: `tag:acme.payments.v1.Payments` selects it.
                tags: vec![full.clone()],
                loc,
                definition: None,
                headers: Vec::new(),
                query: Vec::new(),
                body: Arc::from([]),
                responses: Vec::new(),
                idempotent: None,
                retry_policy: None,
                speakeasy_retries: None,
                ignore: None,
                fern_idempotent: None,
                long_running: None,
                grpc: Some(Box::new(Grpc {
                    service: full.clone(),
                    method: method.name.clone(),
                    streaming: method.streaming,
                    idempotency,
                })),
                effect: Arc::new(effect),
            });
        }
    }
    Ok(Api {
        version: SpecVersion::Proto,
        root_file: root,
        operations,
        webhook_count: 0,
        retry_policy: None,
        servers: Vec::new(),
        speakeasy_retries: None,
        fern_idempotency_headers: Vec::new(),
    })
}

/// What an rpc's repeat repeats: its `idempotency_level` when the rpc sets one (a
/// declaration); else its name, read as an operationId (`GetBalance` reads, AIP-131) and
/// its `google.api.http` binding (`get:` reads, `put:` and `delete:` are idempotent); else
/// a write that promises nothing, as `IDEMPOTENCY_UNKNOWN` is.
fn rpc_effect(
    loc: &Loc,
    name: &str,
    level: Option<&(IdempotencyLevel, Loc)>,
    http: Option<(&'static str, Loc)>,
) -> Inferred {
    let declared = level.map(|(level, at)| Cue {
        says: match level {
            IdempotencyLevel::NoSideEffects => Repeat::Read,
            IdempotencyLevel::Idempotent => Repeat::Idempotent,
            IdempotencyLevel::Unknown => Repeat::NonIdempotent,
        },
        source: CueSource::Declared("idempotency_level"),
        words: level.as_str().into(),
        loc: Some(at.clone()),
        weight: u8::MAX,
    });
    let facts = Facts {
        method: Method::Post,
        // The rpc's name is its action: no path of its own says more.
        path: "",
        site: loc,
        operation_id: Some(Written {
            text: name,
            loc: crate::input::model::effect::Place::Made(std::borrow::Cow::Borrowed(loc)),
            shared: None,
        }),
        summary: None,
        description: None,
        declared,
        media_types: Vec::new(),
        created_at: None,
        http_rule: http.and_then(|(verb, at)| Method::parse(verb).map(|m| (m, at))),
        refusals: Vec::new(),
        refusal_codes: Vec::new(),
        fields: Vec::new(),
    };
    effect::infer(&facts, &mut effect::Seen::default())
}

/// Loads every file `root` imports, directly or not, refusing an import that is missing,
/// leaves the root, is no `.proto` file, or leads back to a file that imports it. The
/// walk keeps its own stack: a chain of imports as long as `--max-files` allows cannot
/// exhaust the program's.
fn follow_imports(loader: &mut Loader, root: FileId) -> Result<(), InputError> {
    // The files being imported, each with the index of its next import.
    let mut stack: Vec<(FileId, usize)> = vec![(root, 0)];
    let mut done = foldhash::HashSet::default();
    while let Some(&mut (id, ref mut next)) = stack.last_mut() {
        let file = loader.file(id);
        let imports = file
            .proto
            .as_ref()
            .map_or(&[][..], |p| p.imports.as_slice());
        let Some((name, span)) = imports.get(*next).cloned() else {
            done.insert(id);
            stack.pop();
            continue;
        };
        *next += 1;
        if WELL_KNOWN.contains(&name.as_str()) {
            continue;
        }
        let imported = loader.import_file(id, &name, span)?;
        let target = loader.file(imported);
        if target.proto.is_none() {
            return Err(InputError::at(
                &file,
                span,
                format!("`{name}` is not a `.proto` file: an import names a protobuf source"),
            ));
        }
        if let Some(start) = stack.iter().position(|(f, _)| *f == imported) {
            let cycle: Vec<String> = stack[start..]
                .iter()
                .map(|(f, _)| loader.file(*f).name())
                .chain(std::iter::once(target.name()))
                .collect();
            return Err(InputError::at(
                &file,
                span,
                format!("import cycle: {}", cycle.join(" → ")),
            )
            .with_help("protobuf files may not import each other in a cycle; move the shared messages to a file both import"));
        }
        if !done.contains(&imported) {
            stack.push((imported, 0));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::input::load::{LoadOptions, Loader};
    use crate::input::model::{IdempotencyLevel, Streaming, build};
    use crate::input::source::{ParseLimits, SourceFile};

    fn model(text: &str) -> crate::input::model::Api {
        let file = SourceFile::parse("svc.proto".into(), text.into(), ParseLimits::default())
            .unwrap_or_else(|(_, e)| panic!("{}", e.message));
        let mut loader = Loader::new(LoadOptions::default());
        let root = loader.add(Arc::new(file));
        build(&mut loader, root).unwrap()
    }

    #[test]
    fn each_rpc_is_a_post_to_its_service_path() {
        let text = "syntax = \"proto3\";\npackage a.b;\nimport \"google/protobuf/empty.proto\";\nservice S {\n  rpc Get(X) returns (Y) { option idempotency_level = NO_SIDE_EFFECTS; }\n  rpc Put(stream X) returns (Y);\n}\nservice T { rpc Go(X) returns (stream Y); }\n";
        let api = model(text);
        let keys: Vec<String> = api
            .operations
            .iter()
            .map(crate::input::model::Operation::title)
            .collect();
        assert_eq!(
            keys,
            [
                "POST /a.b.S/Get (S_Get)",
                "POST /a.b.S/Put (S_Put)",
                "POST /a.b.T/Go (T_Go)"
            ]
        );
        let get = &api.operations[0];
        assert_eq!(get.tags, ["a.b.S"]);
        assert!(get.is_read());
        let grpc = get.grpc.as_ref().unwrap();
        assert_eq!(grpc.full_name(), "a.b.S/Get");
        let (level, loc) = grpc.idempotency.as_ref().unwrap();
        assert_eq!(*level, IdempotencyLevel::NoSideEffects);
        assert_eq!(
            &text[loc.span.range()],
            "option idempotency_level = NO_SIDE_EFFECTS;"
        );
        assert_eq!(
            &*loc.pointer,
            "/services/a.b.S/rpcs/Get/options/idempotency_level"
        );
        let put = api.operations[1].grpc.as_ref().unwrap();
        assert_eq!(put.level(), IdempotencyLevel::Unknown);
        assert_eq!(put.level_source(), "no idempotency_level: unknown");
        assert_eq!(put.streaming, Streaming::Client);
        assert!(!api.operations[1].is_read());
        assert_eq!(
            &text[api.operations[2].loc.span.range()],
            "rpc Go(X) returns (stream Y)"
        );
    }

    #[test]
    fn a_file_without_a_package_names_its_services_alone() {
        let api = model("syntax = \"proto3\";\nservice S { rpc M(X) returns (Y); }\n");
        assert_eq!(api.operations[0].path, "/S/M");
    }
}
