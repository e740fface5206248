//! The container images and the recipes for them in the manual's CI page
//! (`docs/src/ci.md`). No container engine is needed: the Dockerfile's stages are read for
//! what each image must be (the default one the binary alone, the `ci` one a job image
//! with a shell, git and retrylint on PATH, no entrypoint, an unprivileged user), the
//! page's commands are the ones scripts/check-images.sh runs (GitHub's CI runs it), and
//! its GitLab job script runs here, line by line as GitLab runs it, with the tests' binary.

use crate::action_support;
use crate::common;

use std::process::Command;

use action_support::{bin_dir, have_all, printed, root};
use common::{docs, git, scratch};

/// One stage of the Dockerfile: its name, its base and its instructions (continuation
/// lines joined).
struct Stage {
    name: String,
    base: String,
    instructions: Vec<String>,
}

fn stages() -> Vec<Stage> {
    let text = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let joined = text.replace("\\\n", " ");
    let mut stages: Vec<Stage> = Vec::new();
    for line in joined.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("FROM ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let name = match words.as_slice() {
                [_, as_word, name] if as_word.eq_ignore_ascii_case("as") => name.to_string(),
                _ => String::new(),
            };
            stages.push(Stage {
                name,
                base: words[0].to_owned(),
                instructions: Vec::new(),
            });
        } else if let Some(stage) = stages.last_mut() {
            stage.instructions.push(line.to_owned());
        }
    }
    stages
}

impl Stage {
    fn has(&self, prefix: &str) -> bool {
        self.instructions.iter().any(|i| i.starts_with(prefix))
    }

    fn user(&self) -> &str {
        self.instructions
            .iter()
            .rev()
            .find_map(|i| i.strip_prefix("USER "))
            .unwrap_or("root")
    }
}

#[test]
fn the_dockerfile_builds_a_minimal_image_by_default_and_a_ci_job_image() {
    let stages = stages();
    let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["build", "ci", "minimal"]);
    // `docker build .` builds the last stage: the binary alone, run by its entrypoint.
    let minimal = &stages[2];
    assert_eq!(minimal.base, "scratch");
    assert!(minimal.has("COPY --from=build /retrylint /retrylint"));
    assert!(minimal.has("ENTRYPOINT [\"/retrylint\"]"));
    // The job image: the runner starts its shell with the job's script.
    let ci = &stages[1];
    assert!(ci.base.starts_with("alpine:"), "{}", ci.base);
    assert!(
        !ci.has("ENTRYPOINT"),
        "an entrypoint would swallow the job's script"
    );
    assert!(
        ci.has("RUN apk add --no-cache git "),
        "git, for check --base"
    );
    assert!(
        ci.has("COPY --from=build /retrylint /usr/local/bin/retrylint"),
        "retrylint on alpine's PATH"
    );
    assert!(ci.has("CMD [\"sh\"]"));
    for stage in [minimal, ci] {
        let user = stage.user();
        assert!(
            !["root", "0", "0:0"].contains(&user),
            "{} runs as {user}",
            stage.name
        );
        assert!(stage.has("WORKDIR /work"));
    }
}

/// The fenced `language` blocks of the CI page's section under `heading`.
fn ci_page_blocks(heading: &str, language: &str) -> Vec<String> {
    let page = docs::page("ci.md");
    docs::blocks(docs::section(&page, heading), language)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_documented_container_commands_are_the_ones_ci_runs() {
    let script = std::fs::read_to_string(root().join("scripts/check-images.sh")).unwrap();
    let commands: Vec<String> = ci_page_blocks("## Containers", "sh")
        .iter()
        .flat_map(|block| block.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    let builds: Vec<&String> = commands
        .iter()
        .filter(|c| c.starts_with("docker build"))
        .collect();
    assert_eq!(builds.len(), 2, "{commands:?}");
    for build in builds {
        assert!(script.contains(build.as_str()), "the script runs {build}");
    }
    // The runs, on the demo (the script's checkout holds no openapi.yaml at its root).
    let minimal = "docker run --rm -v \"$PWD:/work\" retrylint check openapi.yaml";
    assert!(commands.iter().any(|c| c == minimal), "{commands:?}");
    assert!(script.contains(&minimal.replace("openapi.yaml", "fixtures/shop/openapi.yaml")));
    let ci = commands
        .iter()
        .find(|c| c.contains("retrylint-ci sh -c"))
        .expect("a run of the CI image");
    assert!(ci.contains("--base"), "{ci}");
    assert!(
        script.contains("retrylint-ci sh -c"),
        "the script runs it the same way"
    );
}

#[cfg(unix)]
#[test]
fn the_documented_gitlab_job_runs_as_gitlab_runs_it() {
    if !have_all(&["sh", "git"], "the GitLab job of docs/src/ci.md") {
        return;
    }
    let block = ci_page_blocks("## GitLab CI", "yaml");
    let (node, _) = retrylint::input::source::parse(
        &block[0],
        retrylint::input::source::ParseLimits::default(),
    )
    .unwrap();
    let job = common::to_json(&node)["retrylint"].clone();
    assert!(job["image"].as_str().unwrap().contains("retrylint-ci"));
    assert_eq!(
        job["variables"]["GIT_DEPTH"], 0,
        "the base commit is fetched"
    );
    // A merge request: the base commit, then the change; a description with no finding.
    let project = scratch("gitlab-job");
    git(&project, &["init", "-q"]);
    std::fs::copy(
        root().join("fixtures/contract/openapi.yaml"),
        project.join("openapi.yaml"),
    )
    .unwrap();
    git(&project, &["add", "."]);
    git(&project, &["commit", "-q", "-m", "base"]);
    let base = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(&project)
        .output()
        .unwrap();
    let base = String::from_utf8_lossy(&base.stdout).trim().to_owned();
    let text = std::fs::read_to_string(project.join("openapi.yaml")).unwrap();
    std::fs::write(
        project.join("openapi.yaml"),
        format!("{text}\n# a change\n"),
    )
    .unwrap();
    git(&project, &["commit", "-q", "-am", "change"]);
    let mut printed_all = String::new();
    for line in job["script"].as_array().unwrap() {
        let run = Command::new("sh")
            .args(["-c", line.as_str().unwrap()])
            .current_dir(&project)
            .env("PATH", format!("{}:/usr/bin:/bin", bin_dir().display()))
            .env("CI_MERGE_REQUEST_DIFF_BASE_SHA", &base)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(run.status.success(), "{line}: {}", printed(&run));
        printed_all.push_str(&printed(&run));
    }
    assert!(printed_all.contains("## retrylint diff"), "{printed_all}");
    for report in job["artifacts"]["reports"].as_object().unwrap().values() {
        let file = project.join(report.as_str().unwrap());
        assert!(file.exists(), "{}", file.display());
    }
    let quality = std::fs::read_to_string(project.join("gl-code-quality-report.json")).unwrap();
    assert!(serde_json::from_str::<serde_json::Value>(&quality).is_ok());
}
