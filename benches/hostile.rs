//! `cargo bench --bench hostile`: the inputs that once took gigabytes or minutes, each
//! through the whole binary under the default limits, with its wall time (median of 3),
//! peak memory, output size and exit code (2 where the input is refused by a limit).

#[path = "support/hostile.rs"]
mod hostile;
#[path = "support/measure.rs"]
mod measure;

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-hostile");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("a scratch folder");
    let write = |name: &str, text: &str| -> PathBuf {
        let path = work.join(name);
        std::fs::write(&path, text).expect("a scratch file");
        path
    };
    let retry = write("retry-policy.yaml", hostile::RETRY_POLICY);
    let nested = work.join("nested-trees");
    let nested_commit = hostile::nested_trees_repository(&nested, 10, 6);
    let globs = write("globs-policy.yaml", &hostile::glob_policy(10_000));
    let long_names = write("names-mesh.yaml", &hostile::long_layer_names(1_000_000));
    let layer_hosts = write("hosts-mesh.yaml", &hostile::many_layer_hosts(50_000, 40));
    let service_hosts = write("hosts-policy.yaml", &hostile::many_service_hosts(50_000));
    let alternatives = write(
        "alternatives-mesh.yaml",
        &hostile::many_match_alternatives(5_000, true),
    );
    let cases: Vec<(&str, PathBuf, Vec<String>)> = vec![
        (
            "1 MiB string aliased 5,000 times",
            write("alias.yaml", &hostile::long_string_aliased(1 << 20, 5_000)),
            vec![],
        ),
        (
            "long string aliased up to the budget (60 × 1 MiB)",
            write("alias-fit.yaml", &hostile::long_string_aliased(1 << 20, 60)),
            vec![],
        ),
        (
            "400 nested anchors of 20 kB, no alias",
            write("nested.yaml", &hostile::nested_anchors(400, 20_000)),
            vec![],
        ),
        (
            "`<<` merge of 100,000 keys into 100,000",
            write("merge.yaml", &hostile::large_merge(100_000)),
            vec![],
        ),
        (
            "200 kB path item `$ref`'d from 2,000 paths",
            write("reused.yaml", &hostile::reused_path_item(2_000, 200_000)),
            vec![],
        ),
        (
            "20,000 + 20,000 header parameters",
            write("params.yaml", &hostile::many_header_parameters(20_000)),
            vec![],
        ),
        (
            "10,000 globs × 20,000 operations",
            write("globs.yaml", &hostile::many_operations(10_000, false)),
            vec![
                "-p".into(),
                path_text(&globs),
                "--format".into(),
                "json".into(),
            ],
        ),
        (
            "10,000 suppression comments",
            write("suppressions.yaml", &hostile::many_operations(10_000, true)),
            vec![
                "-p".into(),
                path_text(&retry),
                "--select".into(),
                "unprotected-write-retry".into(),
                "--format".into(),
                "json".into(),
            ],
        ),
        (
            "1 MB layer and route names × 200 operations",
            write("names.yaml", &hostile::many_operations(100, false)),
            vec![
                "-p".into(),
                path_text(&retry),
                "-p".into(),
                path_text(&long_names),
                "--format".into(),
                "json".into(),
            ],
        ),
        (
            "50,000 layer hosts × 50,000 service hosts",
            write("hosts.yaml", &hostile::many_operations(1, false)),
            vec![
                "-p".into(),
                path_text(&service_hosts),
                "-p".into(),
                path_text(&layer_hosts),
            ],
        ),
        (
            "5,000 regex alternatives × 301 base paths × 20 operations",
            write("bases.yaml", &hostile::operations_under_bases(10, 300)),
            vec!["-p".into(), path_text(&alternatives)],
        ),
        (
            "JSON list nested 1,000 deep (the default limit)",
            write("deep.json", &hostile::deep_list(1_000, true)),
            vec![],
        ),
        (
            "JSON list nested 2,000,000 deep, --max-depth 10000000",
            write("deeper.json", &hostile::deep_list(2_000_000, true)),
            vec!["--max-depth".into(), "10000000".into()],
        ),
        (
            "--base at a revision of 10⁶ files in nested trees",
            nested.join("openapi.yaml"),
            vec![
                "--base".into(),
                nested_commit.clone(),
                "--root".into(),
                path_text(&nested),
            ],
        ),
        (
            "-p of that revision's folder of 10⁶ files",
            nested.join("openapi.yaml"),
            vec![
                "--base".into(),
                nested_commit,
                "--root".into(),
                path_text(&nested),
                "-p".into(),
                path_text(&nested.join("mesh")),
            ],
        ),
    ];
    println!("| input | size | exit | wall | peak memory | output |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, spec, extra) in cases {
        let mut args = vec!["check".to_string(), path_text(&spec)];
        args.extend(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (wall, peak) = measure::process(3, &args);
        let output = Command::new(env!("CARGO_BIN_EXE_retrylint"))
            .args(&args)
            .output()
            .ok();
        let code = output
            .as_ref()
            .and_then(|o| o.status.code())
            .map_or("signal".to_string(), |c| c.to_string());
        let printed = output.map_or(0, |o| o.stdout.len() + o.stderr.len());
        // The description and every file given with -p.
        let size: u64 = args
            .iter()
            .filter_map(|a| std::fs::metadata(a).ok())
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
            .sum();
        println!(
            "| {name} | {:.1} MB | {code} | {:.0} ms | {} | {:.1} MB |",
            size as f64 / 1e6,
            wall.as_secs_f64() * 1e3,
            peak.map_or("n/a".to_string(), |kib| format!(
                "{:.0} MiB",
                kib as f64 / 1024.0
            )),
            printed as f64 / 1e6
        );
    }
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
