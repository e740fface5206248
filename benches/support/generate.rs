//! Synthetic descriptions and policies of any size, for the scale benchmarks.
//!
//! Five operations per resource (list, create, read, replace, delete), shared parameters
//! and responses reached by `$ref`, every third create with an idempotency key; optionally
//! one file per resource, referenced from the root.

use std::fmt::Write;
use std::path::Path;

/// Writes `openapi.json` (and `paths/*.json` when `split`) plus `retry-policy.yaml` into
/// `dir`, with `operations` operations (a multiple of five). Returns the description's path.
pub(crate) fn write(
    dir: &Path,
    operations: usize,
    split: bool,
) -> std::io::Result<std::path::PathBuf> {
    std::fs::create_dir_all(dir.join("paths"))?;
    let resources = operations.div_ceil(5);
    let mut paths = String::new();
    let mut policy = String::from(
        "version: 1\ndefaults:\n  maxAttempts: 3\n  deadline: 10s\n  perAttemptTimeout: 2s\n  backoff: {base: 100ms, cap: 2s, jitter: full}\n  retryOn: [429, 503, connect-failure, timeout]\n  retryAfter: {honor: true, max: 500ms}\noperations:\n",
    );
    for r in 0..resources {
        let collection = collection_item(r, split);
        let member = member_item(r, split);
        if split {
            std::fs::write(dir.join(format!("paths/r{r}.json")), &collection)?;
            std::fs::write(dir.join(format!("paths/r{r}-item.json")), &member)?;
            let _ = write!(
                paths,
                "{}\"/r{r}\": {{\"$ref\": \"paths/r{r}.json\"}}, \"/r{r}/{{id}}\": {{\"$ref\": \"paths/r{r}-item.json\"}}",
                if r == 0 { "" } else { ",\n" }
            );
        } else {
            let _ = write!(
                paths,
                "{}\"/r{r}\": {collection}, \"/r{r}/{{id}}\": {member}",
                if r == 0 { "" } else { ",\n" }
            );
        }
        let _ = writeln!(policy, "  list{r}: {{deadline: 5s}}");
        if r.is_multiple_of(3) {
            let _ = writeln!(
                policy,
                "  create{r}: {{idempotency: {{keyHeader: Idempotency-Key, keyRetention: 24h}}, onUnknownOutcome: retry-same-key}}"
            );
        } else {
            let _ = writeln!(
                policy,
                "  create{r}: {{maxAttempts: 1, onUnknownOutcome: fail}}"
            );
        }
        let _ = writeln!(policy, "  \"GET /r{r}/{{id}}\": {{maxAttempts: 4}}");
        let _ = writeln!(policy, "  \"PUT /r{r}/{{id}}\": {{deadline: 8s}}");
        let _ = writeln!(policy, "  \"DELETE /r{r}/{{id}}\": {{maxAttempts: 2}}");
    }
    let root = format!(
        "{{\"openapi\": \"3.0.3\", \"info\": {{\"title\": \"Generated\", \"version\": \"1\"}},\n\"paths\": {{\n{paths}\n}},\n\"components\": {COMPONENTS}}}\n"
    );
    let spec = dir.join("openapi.json");
    std::fs::write(&spec, root)?;
    std::fs::write(dir.join("retry-policy.yaml"), policy)?;
    Ok(spec)
}

/// The `$ref` prefix from a path file or the root to the root's components.
fn components_ref(split: bool) -> &'static str {
    if split {
        "../openapi.json#/components"
    } else {
        "#/components"
    }
}

fn responses(split: bool, ok: &str) -> String {
    let c = components_ref(split);
    format!(
        "{{\"{ok}\": {{\"description\": \"ok\", \"content\": {{\"application/json\": {{\"schema\": {{\"$ref\": \"{c}/schemas/Item\"}}}}}}}}, \"409\": {{\"$ref\": \"{c}/responses/Conflict\"}}, \"429\": {{\"$ref\": \"{c}/responses/TooManyRequests\"}}, \"503\": {{\"$ref\": \"{c}/responses/Unavailable\"}}}}"
    )
}

fn collection_item(r: usize, split: bool) -> String {
    let c = components_ref(split);
    let key = if r.is_multiple_of(3) {
        format!(", \"parameters\": [{{\"$ref\": \"{c}/parameters/IdempotencyKey\"}}]")
    } else {
        String::new()
    };
    format!(
        "{{\"get\": {{\"operationId\": \"list{r}\", \"tags\": [\"t{}\"], \"parameters\": [{{\"$ref\": \"{c}/parameters/Limit\"}}], \"responses\": {}}}, \"post\": {{\"operationId\": \"create{r}\", \"tags\": [\"t{}\"]{key}, \"requestBody\": {{\"content\": {{\"application/json\": {{\"schema\": {{\"$ref\": \"{c}/schemas/Item\"}}}}}}}}, \"responses\": {}}}}}",
        r % 17,
        responses(split, "200"),
        r % 17,
        responses(split, "201")
    )
}

fn member_item(r: usize, split: bool) -> String {
    let c = components_ref(split);
    format!(
        "{{\"parameters\": [{{\"$ref\": \"{c}/parameters/Id\"}}], \"get\": {{\"operationId\": \"get{r}\", \"responses\": {}}}, \"put\": {{\"operationId\": \"replace{r}\", \"responses\": {}}}, \"delete\": {{\"operationId\": \"delete{r}\", \"responses\": {}}}}}",
        responses(split, "200"),
        responses(split, "200"),
        responses(split, "204")
    )
}

const COMPONENTS: &str = r##"{
  "parameters": {
    "Id": {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
    "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}},
    "IdempotencyKey": {"name": "Idempotency-Key", "in": "header", "required": true, "schema": {"type": "string", "maxLength": 255}}
  },
  "headers": {
    "RetryAfter": {"description": "Seconds to wait.", "schema": {"type": "integer", "minimum": 0}}
  },
  "responses": {
    "Conflict": {"description": "The key is in flight or was reused with another body."},
    "TooManyRequests": {"description": "Rate limited.", "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}}},
    "Unavailable": {"description": "Shedding load.", "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}}}
  },
  "schemas": {
    "Item": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "name": {"type": "string", "maxLength": 200}, "tags": {"type": "array", "items": {"type": "string"}}, "created": {"type": "string", "format": "date-time"}}}
  }
}"##;
