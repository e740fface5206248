//! Each cue and each way they combine, on operations written as descriptions write them.

use std::sync::Arc;

use super::{Confidence, CueSource, Inferred, Repeat};
use crate::input::load::{LoadOptions, Loader};
use crate::input::model::build;
use crate::input::source::{ParseLimits, SourceFile};

/// The effect of the one operation `method` of the path `path`, written as `body` (the
/// lines under the method, indented six spaces).
fn effect(path: &str, method: &str, body: &str) -> Inferred {
    let text = format!(
        "openapi: 3.0.3\ninfo: {{title: t, version: '1'}}\npaths:\n  {path}:\n    {method}:\n{body}      responses: {{'200': {{description: ok}}}}\n"
    );
    let file = SourceFile::parse("openapi.yaml".into(), text.clone(), ParseLimits::default())
        .unwrap_or_else(|(_, e)| panic!("{}\n{text}", e.message));
    let mut loader = Loader::new(LoadOptions::default());
    let root = loader.add(Arc::new(file));
    let mut api = build(&mut loader, root).unwrap_or_else(|e| panic!("{}\n{text}", e.message));
    (*api.operations.remove(0).effect).clone()
}

fn says(path: &str, method: &str, body: &str) -> Option<Repeat> {
    effect(path, method, body).repeat
}

/// Asserts what a POST whose summary is `summary` repeats.
fn assert_summary_says(path: &str, summary: &str, repeat: Repeat) {
    assert_eq!(
        says(path, "post", &format!("      summary: {summary}\n")),
        Some(repeat),
        "{summary}"
    );
}

#[test]
fn a_post_that_searches_reads() {
    let e = effect(
        "/v1/customers/search",
        "post",
        "      operationId: searchCustomers\n      summary: Search customers\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Read));
    assert_eq!(e.confidence, Confidence::High);
    assert_eq!(
        e.evidence(crate::input::model::Method::Post),
        "summary \"Search customers\"; operationId `searchCustomers`; path `search`"
    );
    for (path, id) in [
        ("/collections/{name}/points/query", "queryPoints"),
        ("/stores/{id}/check", "Check"),
        ("/v1/{name}:search", "x"),
        ("/v1/{resource}:getIamPolicy", "x"),
        ("/v1/{resource}:testIamPermissions", "x"),
        ("/multi_search", "multiSearch"),
        // A verb alone in its part takes its object from the next part.
        (
            "/metadata_queries/execute_read",
            "post_metadata_queries_execute_read",
        ),
    ] {
        assert_eq!(
            says(path, "post", &format!("      operationId: {id}\n")),
            Some(Repeat::Read),
            "{path}"
        );
    }
    // A write's object beside the read's keeps the write.
    assert_eq!(
        says(
            "/transactions/execute_read_write",
            "post",
            "      operationId: execute_read_write\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn posts_and_patches_that_set_or_replace_are_idempotent() {
    assert_eq!(
        says("/chat.update", "post", "      operationId: chat_update\n"),
        Some(Repeat::Idempotent)
    );
    assert_eq!(
        says("/v1/{resource}:setIamPolicy", "post", ""),
        Some(Repeat::Idempotent)
    );
    assert_eq!(
        says(
            "/things",
            "post",
            "      description: Creates the thing. This operation is idempotent.\n"
        ),
        Some(Repeat::Idempotent)
    );
    assert_eq!(
        says(
            "/things/{id}",
            "patch",
            "      requestBody:\n        content:\n          application/merge-patch+json: {schema: {type: object}}\n"
        ),
        Some(Repeat::Idempotent)
    );
    // A create whose duplicate is refused is not repeated.
    assert_eq!(
        says(
            "/users",
            "post",
            "      summary: Create a new user. Username must be unique.\n"
        ),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn a_required_field_with_a_unique_name_makes_a_create_refuse_its_repeat() {
    let body = |required: &str| {
        format!(
            "      summary: Create a registry\n      requestBody:\n        content:\n          application/json:\n            schema:\n              type: object\n              required: [{required}]\n              properties:\n                name: {{type: string, description: A globally unique name for the container registry.}}\n                region: {{type: string}}\n"
        )
    };
    assert_eq!(
        says("/registries", "post", &body("name")),
        Some(Repeat::Idempotent)
    );
    // A name the request may leave out does not make every request conflict.
    assert_eq!(
        says("/registries", "post", &body("region")),
        Some(Repeat::NonIdempotent)
    );
    // Nor does a unique name the operation's own words tell of: the server may pick it.
    assert_eq!(
        says(
            "/apps",
            "post",
            "      summary: Create an app\n      description: Creates an app. Each app gets a unique name.\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn what_a_request_overwrites_a_repeat_overwrites_again() {
    // qdrant/qdrant, docs/redoc/master/openapi.json (`recover_from_uploaded_snapshot`).
    let text = "      summary: Recover from an uploaded snapshot\n      description: Recover local collection data from an uploaded snapshot. This will overwrite any data, stored on this node, for the collection.\n";
    assert_eq!(
        says("/collections/{name}/snapshots/upload", "post", text),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn requests_that_only_create_one_are_idempotent() {
    // github/rest-api-description (`orgs/create-artifact-deployment-record`).
    let text = "      summary: Create an artifact deployment record\n      description: Multiple requests for the same combination of logical, physical environment, cluster and deployment name will only create one record.\n";
    assert_eq!(
        says(
            "/orgs/{org}/artifacts/metadata/deployment-record",
            "post",
            text
        ),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn an_update_whose_field_generates_a_new_object_repeats_it() {
    // stripe/openapi, spec3.yaml (`PostSubscriptionItemsItem`): `price_data`.
    let body = |field: &str| {
        format!(
            "      description: Updates the plan or quantity of an item on a current subscription.\n      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema:\n              type: object\n              properties:\n                price_data: {{type: object, description: {field}}}\n"
        )
    };
    let generates = body("Data used to generate a new Price object inline.");
    assert_eq!(
        says("/v1/subscription_items/{item}", "post", &generates),
        Some(Repeat::NonIdempotent)
    );
    let names = body("The ID of the price object.");
    assert_eq!(
        says("/v1/subscription_items/{item}", "post", &names),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn an_api_that_replaces_another_says_nothing_of_the_request() {
    // stripe/openapi, spec3.json (`PostPlans`).
    let plans = "      summary: Create a plan\n      description: You can now model subscriptions more flexibly using the Prices API. It replaces the Plans API and is backwards compatible to simplify your migration.\n";
    assert_eq!(
        says("/v1/plans", "post", plans),
        Some(Repeat::NonIdempotent)
    );
    // github/rest-api-description (`actions/set-selected-repositories-…`).
    let list = "      description: Replaces the list of selected repositories that are enabled for GitHub Actions in an organization.\n";
    assert_eq!(
        says("/orgs/{org}/actions/permissions/repositories", "post", list),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn what_is_taken_by_its_place_is_another_item_at_each_repeat() {
    // box/box-openapi, openapi.json (`levels:trim`).
    let trim = "      summary: Delete metadata taxonomy level\n      description: Deletes the last level of the metadata taxonomy.\n";
    assert_eq!(
        says("/metadata_taxonomies/{ns}/{key}/levels:trim", "post", trim),
        Some(Repeat::NonIdempotent)
    );
    assert_eq!(
        says("/history", "post", "      summary: Undo the last change\n"),
        Some(Repeat::NonIdempotent)
    );
    // A place that is not the object, or a read of it, takes nothing.
    assert_eq!(
        says(
            "/levels/{id}",
            "delete",
            "      summary: Delete a level\n      description: Deletes a level. The last level cannot be deleted.\n"
        ),
        Some(Repeat::Idempotent)
    );
    assert_eq!(
        says(
            "/pages",
            "post",
            "      summary: Get the next page of results\n"
        ),
        Some(Repeat::Read)
    );
}

#[test]
fn puts_that_create_or_send_are_not_idempotent() {
    assert_eq!(
        says(
            "/Invoices",
            "put",
            "      operationId: createInvoices\n      summary: Creates one or more sales invoices\n"
        ),
        Some(Repeat::NonIdempotent)
    );
    assert_eq!(
        says(
            "/users/{id}/reset-password-email",
            "put",
            "      description: Send an email to the user with a link they can click to reset their password.\n"
        ),
        Some(Repeat::NonIdempotent)
    );
    // A PUT that names what it creates creates it once.
    assert_eq!(
        says("/files/{name}", "put", "      summary: Create a file\n"),
        Some(Repeat::Idempotent)
    );
    // Create or update is an upsert.
    assert_eq!(
        says(
            "/items",
            "put",
            "      operationId: addOrUpdateItem\n      summary: Create or update an item\n"
        ),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn graphql_reads_when_it_speaks_only_of_queries() {
    assert_eq!(
        says(
            "/graphql",
            "post",
            "      description: Run GraphQL queries against the data.\n"
        ),
        Some(Repeat::Read)
    );
    assert_eq!(
        says(
            "/graphql",
            "post",
            "      description: Run GraphQL queries and mutations.\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn a_declaration_decides_alone() {
    let e = effect(
        "/v1/customers/search",
        "post",
        "      operationId: createCustomer\n      x-side-effect: none\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Read));
    assert_eq!(e.confidence, Confidence::Declared);
    let cue = e.declaration().expect("declared");
    assert_eq!(cue.source, CueSource::Declared("x-side-effect"));
    assert_eq!(
        says(
            "/search",
            "post",
            "      summary: Search\n      x-idempotent: false\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn conflicting_words_are_unknown_and_name_both_sides() {
    let e = effect(
        "/things",
        "post",
        "      summary: Search things\n      description: Creates a thing for each match.\n",
    );
    // A read's words (the summary) outweigh a write's (the description): unknown, not read.
    assert_eq!(e.repeat, None, "{e:?}");
    assert_eq!(
        e.text(crate::input::model::Method::Post),
        "unknown (description \"Creates a thing for each match.\" says non-idempotent-write; summary \"Search things\" says read)"
    );
    let read_only = effect(
        "/things/export",
        "post",
        "      operationId: createExport\n      summary: List the things\n",
    );
    // A read's words never outweigh a write's into a read.
    assert_ne!(read_only.repeat, Some(Repeat::Read), "{read_only:?}");
    assert_eq!(read_only.acts_as(), Repeat::NonIdempotent);
}

#[test]
fn a_safe_method_stays_a_read_unless_its_words_outweigh_it() {
    assert_eq!(
        says("/orders", "get", "      operationId: createOrder\n"),
        Some(Repeat::Read)
    );
    assert_eq!(
        says(
            "/builds/trigger",
            "get",
            "      operationId: triggerBuild\n      summary: Trigger a build\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn the_method_alone_is_the_last_fallback() {
    let e = effect("/things", "post", "");
    assert_eq!(e.repeat, Some(Repeat::NonIdempotent));
    assert_eq!(e.confidence, Confidence::Low);
    assert!(e.cues.is_empty());
    assert_eq!(says("/things/{id}", "delete", ""), Some(Repeat::Idempotent));
}

#[test]
fn a_bad_declaration_is_an_input_error() {
    let text = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post:\n      x-side-effect: maybe\n      responses: {'200': {description: ok}}\n";
    let file = SourceFile::parse("openapi.yaml".into(), text.into(), ParseLimits::default())
        .unwrap_or_else(|(_, e)| panic!("{}", e.message));
    let mut loader = Loader::new(LoadOptions::default());
    let root = loader.add(Arc::new(file));
    let err = build(&mut loader, root).expect_err("maybe is no side effect");
    assert!(err.message.contains("x-side-effect"), "{}", err.message);
}

#[test]
fn appending_and_counting_compound_whatever_the_verb() {
    // GitHub's `checks/update` (octokit/openapi, generated/api.github.com.json).
    assert_eq!(
        says(
            "/repos/{owner}/{repo}/check-runs/{check_run_id}",
            "patch",
            "      summary: Update a check run\n      description: Each time you update the check run, annotations are appended to the list of annotations that already exist for the check run.\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn a_sentence_about_a_key_does_not_make_the_operation_idempotent() {
    // Twilio's `UpdatePayments` (twilio/twilio-oai, twilio_api_v2010.json), whose
    // IdempotencyKey is described as "used to ensure that multiple API calls with the
    // same information do not result in multiple transactions".
    let text = "      operationId: createPayment\n      description: The token is idempotent, and a call with the same token is answered once.\n";
    assert_eq!(says("/payments", "post", text), Some(Repeat::NonIdempotent));
    let plain = "      description: Creates the thing. This operation is idempotent.\n";
    assert_eq!(says("/things", "post", plain), Some(Repeat::Idempotent));
}

#[test]
fn a_second_verb_joined_by_and_counts_when_it_takes_an_object() {
    let sends = "      summary: Preview the report and send it to its subscribers\n";
    assert_eq!(
        says("/reports/{id}/preview", "post", sends),
        Some(Repeat::NonIdempotent)
    );
    let id = "      operationId: previewAndSendReport\n";
    assert_eq!(
        says("/reports/{id}", "post", id),
        Some(Repeat::NonIdempotent)
    );
    // GitHub's `actions/get-artifact-and-log-retention-settings-organization`: a noun
    // phrase, not a second verb.
    let noun = "      summary: Get artifact and log retention settings\n";
    assert_eq!(
        says("/orgs/{org}/retention", "get", noun),
        Some(Repeat::Read)
    );
}

#[test]
fn a_required_name_the_server_keeps_unique_makes_a_repeat_a_conflict() {
    // DigitalOcean's `vpcs_create` (digitalocean/openapi, specification/resources/vpcs).
    let body = "      summary: Create a New VPC\n      requestBody:\n        content:\n          application/json:\n            schema:\n              type: object\n              required: [name]\n              properties:\n                name: { type: string, description: The name of the VPC. Must be unique and may only contain alphanumeric characters. }\n";
    let e = effect("/v2/vpcs", "post", body);
    assert_eq!(e.repeat, Some(Repeat::Idempotent));
    assert!(
        e.cues.iter().any(|c| c.source == CueSource::RequestField),
        "{e:?}"
    );
    // Optional, the name may be left out, and the create repeats.
    let optional = body.replace("required: [name]", "required: []");
    assert_eq!(
        says("/v2/vpcs", "post", &optional),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn created_if_absent_is_idempotent_and_created_each_time_is_not() {
    // Qdrant's `recover_from_snapshot` (qdrant/qdrant, docs/redoc/master/openapi.json).
    let once = "      description: Recover local collection data from a snapshot. If collection does not exist - it will be created.\n";
    assert_eq!(
        says("/collections/{name}/snapshots/recover", "put", once),
        Some(Repeat::Idempotent)
    );
    let each = "      description: Returns the batch. A new export is created.\n";
    assert_eq!(says("/exports", "post", each), Some(Repeat::NonIdempotent));
}

#[test]
fn a_form_field_that_appends_makes_an_update_repeat() {
    // Stripe's `PostSubscriptionsSubscriptionExposedId` (stripe/openapi, openapi/spec3.yaml):
    // a form body whose `add_invoice_items` "will generate invoice items appended to the
    // next invoice".
    let body = "      description: Updates an existing subscription to match the specified parameters.\n      requestBody:\n        content:\n          application/x-www-form-urlencoded:\n            schema:\n              type: object\n              properties:\n                add_invoice_items: { type: array, description: A list of prices and quantities that will generate invoice items appended to the next invoice for this subscription. }\n";
    let e = effect("/v1/subscriptions/{id}", "post", body);
    assert_eq!(e.repeat, Some(Repeat::NonIdempotent), "{e:?}");
    assert!(
        e.cues.iter().any(|c| c.source == CueSource::RequestField),
        "{e:?}"
    );
    // Without that field, the update sets what it names.
    let plain = body.replace("appended to the next invoice", "on the next invoice");
    assert_eq!(
        says("/v1/subscriptions/{id}", "post", &plain),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn not_already_after_a_condition_says_a_repeat_changes_nothing() {
    // Asana's addFollowers: the request acts only where the users are not followers yet.
    let e = effect(
        "/projects/{project_gid}/addFollowers",
        "post",
        "      summary: Add followers to a project\n      description: Adds the specified list of users as followers to the project. Followers are a subset of members, therefore if the users are not already members of the project, they will also become members as a result of this operation.\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Idempotent));
    assert_eq!(e.cues[0].source, CueSource::Description);
    assert!(
        e.cues[0].words.text().starts_with("Followers are a subset"),
        "{}",
        e.cues[0].words
    );
    // Without a condition, "not already" tells of something else.
    assert_eq!(
        says(
            "/lists/{id}/items",
            "post",
            "      summary: Add an item\n      description: Adds an item that is not already in the list to its end.\n",
        ),
        Some(Repeat::NonIdempotent)
    );
    // An option of the request, listed beside one that compounds, is not the operation's.
    assert_eq!(
        says(
            "/indexes/{name}/{id}/partial",
            "post",
            "      summary: Update attributes\n      description: |\n        Updates attributes with these operations.\n\n        - `Increment`: increments a numeric attribute.\n        - `AddUnique`: adds an element only if it's not already present.\n",
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn ending_resolving_and_resizing_leave_what_the_first_request_left() {
    for (path, summary) in [
        ("/calls.end", "Ends a Call."),
        ("/incidents/{id}/resolve", "Resolve an incident"),
        (
            "/v2/vector-databases/{id}/resize",
            "Resize a vector database",
        ),
        ("/channels/{id}/bans", "Ban a user from the channel"),
        (
            "/lists/{id}/unsubscribe",
            "Unsubscribe a member from a list",
        ),
    ] {
        assert_summary_says(path, summary, Repeat::Idempotent);
    }
}

#[test]
fn an_operation_id_that_restates_the_path_names_its_action_last() {
    // Plaid's `transferGet`: `transfer` is the resource here, not the verb.
    let e = effect(
        "/transfer/recurring/get",
        "post",
        "      operationId: transferRecurringGet\n      summary: Retrieve a recurring transfer\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Read));
    assert!(
        e.cues.iter().all(|c| c.says == Repeat::Read),
        "{:?}",
        e.cues
    );
    // An operationId that says more than its path is read as before.
    assert_eq!(
        says("/transfers", "post", "      operationId: transferCreate\n"),
        Some(Repeat::NonIdempotent)
    );
    assert_eq!(
        says(
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
            "post",
            "      operationId: issues/create-comment\n"
        ),
        Some(Repeat::NonIdempotent)
    );
    // Assignees added to the issue the path names are members of a set: added once.
    assert_eq!(
        says(
            "/repos/{owner}/{repo}/issues/{issue_number}/assignees",
            "post",
            "      operationId: issues/add-assignees\n"
        ),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn how_to_call_an_operation_and_the_names_in_code_spans_are_no_verbs() {
    // "Send a request" is how the operation is called; the read follows.
    let e = effect(
        "/categories/get",
        "post",
        "      description: Send a request to the `/categories/get` endpoint to get detailed information on legacy categories.\n",
    );
    assert_ne!(e.repeat, Some(Repeat::NonIdempotent), "{e:?}");
    assert!(
        e.cues.iter().all(|c| c.source != CueSource::Description),
        "{e:?}"
    );
    // "The `/transfer/get` endpoint fetches …" leads with `fetches`.
    let e = effect(
        "/transfer/status",
        "post",
        "      description: The `/transfer/get` endpoint fetches information about the transfer.\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Read), "{e:?}");
    // A request that is the thing sent is no call of the API: it is sent, and it
    // disagrees with an update.
    assert_eq!(
        says(
            "/users/{user_id}/relationships",
            "post",
            "      operationId: updateRelationship\n      description: Send a friend request to the user.\n"
        ),
        None
    );
    // Sending something that is not a request still sends.
    assert_eq!(
        says(
            "/messages",
            "post",
            "      summary: Send a message to a channel\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn an_operation_id_written_resource_first_is_read_from_its_verb() {
    // Discord's `invite_revoke`: the invite is the resource, revoking it the action.
    assert_eq!(
        says(
            "/invites/{code}",
            "delete",
            "      operationId: invite_revoke\n"
        ),
        Some(Repeat::Idempotent)
    );
    // Discord's `poll_expire` for `/polls/{message_id}/expire`: one poll, many polls.
    assert_eq!(
        says(
            "/channels/{channel_id}/polls/{message_id}/expire",
            "post",
            "      operationId: poll_expire\n"
        ),
        Some(Repeat::Idempotent)
    );
    // A verb that names a segment and comes before its object is still the verb.
    assert_eq!(
        says(
            "/v1/customers/search",
            "post",
            "      operationId: searchCustomers\n"
        ),
        Some(Repeat::Read)
    );
    // The caller's own reaction, `@me`, is named by the URL: a second PUT leaves one.
    assert_eq!(
        says(
            "/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me",
            "put",
            "      operationId: add_my_message_reaction\n"
        ),
        Some(Repeat::Idempotent)
    );
}

#[test]
fn money_moved_is_moved_again() {
    for (path, summary) in [
        (
            "/transfer/ledger/distribute",
            "Move available balance between ledgers",
        ),
        (
            "/transfer/ledger/deposit",
            "Deposit funds into a Plaid Ledger balance",
        ),
        (
            "/transfer/ledger/withdraw",
            "Withdraw funds from a Plaid Ledger balance",
        ),
    ] {
        assert_summary_says(path, summary, Repeat::NonIdempotent);
    }
}

#[test]
fn what_must_already_exist_is_a_requirement_and_attaching_it_is_idempotent() {
    // A precondition is no refused duplicate: the order is created each time.
    assert_eq!(
        says(
            "/orders",
            "post",
            "      summary: Create an order\n      description: Creates an order. The customer must already exist.\n"
        ),
        Some(Repeat::NonIdempotent)
    );
    // Intercom's attachTagToArticle: applying an existing tag twice leaves one.
    assert_eq!(
        says(
            "/articles/{article_id}/tags",
            "post",
            "      operationId: attachTagToArticle\n      summary: Add a tag to an article\n      description: Apply an existing tag to an article. The tag must already exist in the workspace.\n"
        ),
        Some(Repeat::Idempotent)
    );
    // A new thing added to an existing one is still new.
    assert_eq!(
        says(
            "/subscription_items",
            "post",
            "      description: Adds a new item to an existing subscription.\n"
        ),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn a_statement_that_nothing_is_saved_decides_over_verbs() {
    let e = effect(
        "/repos/{owner}/{repo}/releases/generate-notes",
        "post",
        "      operationId: repos/generate-release-notes\n      summary: Generate release notes content for a release\n      description: Generate a name and body describing a release. The generated release notes are not saved anywhere. They are intended to be generated and used when creating a new release.\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Read), "{e:?}");
    assert_eq!(e.cues[0].source, CueSource::Description);
    // Something left alone is no statement of the whole request: a create that keeps
    // no card number still creates.
    assert_summary_says(
        "/payments",
        "Creates a payment. The card number is not saved.",
        Repeat::NonIdempotent,
    );
    // A statement that holds for some requests only does not decide: the others write.
    for description in [
        "When dry_run is true, no changes are made.",
        "The import is a dry run if dry_run is set.",
    ] {
        assert_eq!(
            says(
                "/imports",
                "post",
                &format!("      summary: Create an import\n      description: {description}\n"),
            ),
            Some(Repeat::NonIdempotent),
            "{description}"
        );
    }
    // A statement of a write stands against it: the verbs decide again.
    assert_ne!(
        says(
            "/reports/{id}/share",
            "post",
            "      summary: Share the report\n      description: No changes are made to the report; an email is sent to each reader.\n",
        ),
        Some(Repeat::Read)
    );
}

#[test]
fn a_write_on_what_it_has_not_yet_done_is_refused_the_second_time() {
    let e = effect(
        "/v1/payment_intents/{intent}/capture",
        "post",
        "      summary: Capture a PaymentIntent\n      description: Capture the funds of an existing uncaptured PaymentIntent when its status is requires_capture.\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Idempotent), "{e:?}");
    assert!(e.cues[0].words.text().contains("uncaptured"), "{e:?}");
    assert_summary_says(
        "/user/codespaces/{codespace_name}/publish",
        "Publishes an unpublished codespace, creating a new repository.",
        Repeat::Idempotent,
    );
    // Another verb's state says nothing of this one: the payment not yet captured is
    // cancelled once, and a capture of an uncancelled one captures.
    assert_summary_says(
        "/payments/{id}/captures",
        "Captures an uncancelled payment.",
        Repeat::NonIdempotent,
    );
}

#[test]
fn a_member_added_to_a_set_is_added_once_and_new_content_each_time() {
    for summary in [
        "Add followers to a project",
        "Adds labels to an issue.",
        "Add a user to a workspace or organization",
    ] {
        assert_summary_says("/projects/{id}/followers", summary, Repeat::Idempotent);
    }
    for summary in [
        "Add a comment to an issue",
        "Add new permissions to an existing role",
        "Add a field to a project",
    ] {
        assert_summary_says("/projects/{id}/items", summary, Repeat::NonIdempotent);
    }
    // The path names where the member goes; a create of users names no target.
    assert_eq!(
        says(
            "/goals/{goal_gid}/addFollowers",
            "post",
            "      operationId: addFollowers\n"
        ),
        Some(Repeat::Idempotent)
    );
    assert_eq!(
        says(
            "/chats/{id}/members",
            "post",
            "      operationId: ChatMemberOperations_addMembers\n"
        ),
        Some(Repeat::Idempotent)
    );
    assert_eq!(
        says("/users", "post", "      operationId: addUser\n"),
        Some(Repeat::NonIdempotent)
    );
}

#[test]
fn resolving_a_name_looks_it_up_and_resolving_an_incident_changes_it() {
    let e = effect(
        "/organizations/{org}/eventids/{event_id}/",
        "get",
        "      operationId: resolveOrganizationEventId\n      summary: Resolve an Event ID\n      description: This resolves an event ID to the project slug and internal issue ID.\n",
    );
    assert_eq!(e.repeat, Some(Repeat::Read), "{e:?}");
    assert_summary_says(
        "/incidents/{id}/resolve",
        "Resolve an incident",
        Repeat::Idempotent,
    );
    // An identifier carries its object too: `executeQuery` runs a read.
    assert_eq!(
        says("/graph", "post", "      operationId: executeQuery\n"),
        Some(Repeat::Read)
    );
}

#[test]
fn a_put_that_names_its_target_makes_it_once_but_sends_each_time() {
    let put = |path: &str, summary: &str| says(path, "put", &format!("      summary: {summary}\n"));
    assert_eq!(
        put("/files/{name}", "Create a file"),
        Some(Repeat::Idempotent)
    );
    assert_eq!(
        put(
            "/signature_request/edit/{id}",
            "Edits and sends a SignatureRequest"
        ),
        Some(Repeat::NonIdempotent)
    );
    assert_eq!(
        put("/invoices/{id}", "Send the invoice"),
        Some(Repeat::NonIdempotent)
    );
    // A create made once, then a send joined to it: the send is done again.
    assert_eq!(
        put("/invoices/{id}", "Creates and sends an invoice"),
        Some(Repeat::NonIdempotent)
    );
    let id = |id: &str| {
        says(
            "/invoices/{id}",
            "put",
            &format!("      operationId: {id}\n"),
        )
    };
    assert_eq!(id("createAndSendInvoice"), Some(Repeat::NonIdempotent));
    assert_eq!(id("createInvoice"), Some(Repeat::Idempotent));
}
