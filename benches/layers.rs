//! `cargo bench --bench layers`: importing Kubernetes manifests against parsing them.
//!
//! 1,000 manifest files, each a Deployment, a Service and an Istio `VirtualService` with
//! three routes (one without `retries`, so the mesh default is synthesised), are read
//! twice: parsed only (every YAML document into the spanned tree), and through `-p`'s
//! whole path (read, parse, recognise, import every route). The target is an import
//! within 2× the parse. A whole `check` with the manifests as one folder is timed too.

#[path = "support/measure.rs"]
mod measure;

use std::path::{Path, PathBuf};

use retrylint::analysis::check::load_given;
use retrylint::input::load::LoadOptions;
use retrylint::input::source::SourceFile;

const FILES: usize = 1_000;

fn manifest(i: usize) -> String {
    format!(
        "apiVersion: apps/v1
kind: Deployment
metadata: {{ name: svc-{i}, namespace: prod }}
spec:
  replicas: 2
  selector: {{ matchLabels: {{ app: svc-{i} }} }}
  template:
    metadata: {{ labels: {{ app: svc-{i} }} }}
    spec:
      containers:
        - {{ name: app, image: \"registry.example.com/svc-{i}:1.0.{i}\" }}
---
apiVersion: v1
kind: Service
metadata: {{ name: svc-{i}, namespace: prod }}
spec:
  selector: {{ app: svc-{i} }}
  ports: [{{ port: 8080 }}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {{ name: svc-{i}, namespace: prod }}
spec:
  hosts: [svc-{i}.prod.svc.cluster.local]
  http:
    - name: reads
      match:
        - method: {{ exact: GET }}
          uri: {{ prefix: /items }}
      timeout: 5s
      retries: {{ attempts: 2, perTryTimeout: 1s, retryOn: \"connect-failure,refused-stream,503\" }}
      route: [{{ destination: {{ host: svc-{i}.prod.svc.cluster.local }} }}]
    - name: search
      match:
        - uri: {{ regex: \"/items/[0-9]+/search\" }}
      retries: {{ attempts: 0 }}
      route: [{{ destination: {{ host: svc-{i}.prod.svc.cluster.local }} }}]
    - name: writes
      route: [{{ destination: {{ host: svc-{i}.prod.svc.cluster.local }} }}]
"
    )
}

fn main() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-layers");
    let _ = std::fs::remove_dir_all(&work);
    let manifests = work.join("manifests");
    std::fs::create_dir_all(&manifests).expect("a scratch folder");
    let paths: Vec<PathBuf> = (0..FILES)
        .map(|i| {
            let path = manifests.join(format!("svc-{i:04}.yaml"));
            std::fs::write(&path, manifest(i)).expect("a scratch file");
            path
        })
        .collect();
    let options = LoadOptions::default();
    let parse = measure::median(7, || {
        for path in &paths {
            let text = std::fs::read_to_string(path).expect("readable");
            let file = SourceFile::parse_documents(path.clone(), text, options.parse);
            std::hint::black_box(file.is_ok());
        }
    });
    let import = measure::median(7, || {
        let given = load_given(std::slice::from_ref(&manifests), &options).expect("imports");
        std::hint::black_box(given.layer_files.len());
    });
    let ratio = import.as_secs_f64() / parse.as_secs_f64();
    println!("{FILES} manifests (3 documents each, 3 routes per VirtualService)");
    println!(
        "  parse only:             {:>8.1} ms",
        parse.as_secs_f64() * 1e3
    );
    println!(
        "  read + recognise + import: {:>5.1} ms  ({ratio:.2}× the parse; target ≤ 2×)",
        import.as_secs_f64() * 1e3
    );
    let spec = write_spec(&work);
    let dir = manifests.to_string_lossy().into_owned();
    let spec = spec.to_string_lossy().into_owned();
    let (wall, peak) = measure::process(
        3,
        &[
            "check",
            &spec,
            "-p",
            &dir,
            "--host",
            "svc-7.prod.svc.cluster.local",
        ],
    );
    println!(
        "  check with -p of the folder: {:.1} ms wall, peak {}",
        wall.as_secs_f64() * 1e3,
        peak.map_or("n/a".to_string(), |kib| format!(
            "{:.1} MiB",
            kib as f64 / 1024.0
        ))
    );
    // The worst binding the limit lets through: routes that match nothing, so every
    // operation is tried against every route.
    let (spec, vs) = worst_binding(&work, 2_000, 2_499);
    let (wall, _) = measure::process(3, &["check", &spec, "-p", &vs]);
    println!(
        "  worst binding under the limit (2,499 routes matching nothing × 2,000 operations): {:.1} ms wall",
        wall.as_secs_f64() * 1e3
    );
}

/// A description of `operations` paths and a VirtualService of `routes` routes that take
/// none of them.
fn worst_binding(work: &Path, operations: usize, routes: usize) -> (String, String) {
    let mut spec = String::from("openapi: 3.0.3\ninfo: { title: Many, version: '1' }\npaths:\n");
    for i in 0..operations {
        spec.push_str(&format!(
            "  /r{i}/{{id}}:\n    get: {{ responses: {{ '200': {{ description: ok }} }} }}\n"
        ));
    }
    let mut vs = String::from(
        "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: { name: many }\nspec:\n  hosts: ['*']\n  http:\n",
    );
    for i in 0..routes {
        vs.push_str(&format!(
            "  - match: [{{ uri: {{ prefix: /r{i}/x/ }}, method: {{ exact: GET }} }}]\n    route: [{{ destination: {{ host: x }} }}]\n"
        ));
    }
    let (spec_path, vs_path) = (work.join("many.yaml"), work.join("many-vs.yaml"));
    std::fs::write(&spec_path, spec).expect("a scratch file");
    std::fs::write(&vs_path, vs).expect("a scratch file");
    (
        spec_path.to_string_lossy().into_owned(),
        vs_path.to_string_lossy().into_owned(),
    )
}

/// A small description the check binds the manifests to.
fn write_spec(work: &Path) -> PathBuf {
    let path = work.join("openapi.yaml");
    std::fs::write(
        &path,
        "openapi: 3.0.3
info: { title: Items, version: 1.0.0 }
paths:
  /items:
    get: { operationId: listItems, responses: { '200': { description: ok } } }
    post: { operationId: createItem, responses: { '201': { description: ok } } }
",
    )
    .expect("a scratch file");
    path
}
