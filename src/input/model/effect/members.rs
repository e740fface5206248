//! `Add X to Y` where X is a member of a set: "Add followers to a project", "Adds labels
//! to an issue", `add-selected-repo-to-org-secret`. What is added already exists (a user,
//! a label, a repository), and Y holds it once: a second request finds it there, so the
//! add is idempotent. What is added new ("Add a comment to an issue", "Add new
//! permissions", "Add a field to a project") is made each time, and keeps the verb's
//! reading.

use super::words::{inflects, one_of};

/// Things that are members of a set rather than content made by the request: people,
/// teams, labels, repositories, permissions, as the APIs name them.
const MEMBERS: &[&str] = &[
    "user",
    "member",
    "follower",
    "collaborator",
    "assignee",
    "reviewer",
    "watcher",
    "subscriber",
    "label",
    "tag",
    "team",
    "group",
    "organization",
    "org",
    "repository",
    "repositories",
    "repo",
    "permission",
    "role",
];

/// Words between `add` and what it adds that say which or how many, not what.
const FILLERS: &[&str] = &[
    "a",
    "an",
    "the",
    "one",
    "or",
    "more",
    "multiple",
    "selected",
    "specified",
    "given",
    "existing",
    "custom",
];

/// Words that name where the member goes (`to a project`; an identifier's `For`:
/// `addFollowersForProject`).
const JOINTS: &[&str] = &["to", "for", "into"];

/// How many words after the verb are read for the member and where it goes.
const WINDOW: usize = 7;

/// Whether `verb` is `add` (`adds`) and the words after it add a member to a set:
/// fillers, then a [`MEMBERS`] word (in the singular, with `s`, or as written), and a
/// [`JOINTS`] word within [`WINDOW`] words — or, with `target_named`, none: the path
/// names where the member goes (`/goals/{goal_gid}/addFollowers`). `new` among the
/// fillers says the member is made, not added.
pub(super) fn adds_member<'t>(
    verb: &str,
    after: impl IntoIterator<Item = &'t str>,
    target_named: impl Fn() -> bool,
) -> bool {
    if !inflects(verb, "add") {
        return false;
    }
    let mut member = false;
    for word in after.into_iter().take(WINDOW) {
        if member {
            if one_of(word, JOINTS) {
                return true;
            }
        } else if word.eq_ignore_ascii_case("new") {
            return false;
        } else if !one_of(word, FILLERS) {
            if !MEMBERS.iter().any(|m| inflects(word, m)) {
                return false;
            }
            if target_named() {
                return true;
            }
            member = true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::adds_member;

    fn words(text: &str) -> Vec<&str> {
        text.split(' ').collect()
    }

    #[test]
    fn a_member_added_to_a_set_is_there_once() {
        for (verb, rest) in [
            ("Add", "followers to a project"),
            (
                "Adds",
                "the specified list of users as members of the project",
            ),
            ("add", "a user to a workspace or organization"),
            ("Adds", "custom labels to a self-hosted runner"),
            ("add", "selected repo to org secret"),
            ("add", "Followers For Project"),
        ] {
            let after = words(rest);
            let expected = !rest.starts_with("the specified list");
            assert_eq!(
                adds_member(verb, after, || false),
                expected,
                "{verb} {rest}"
            );
        }
        for (verb, rest) in [
            ("Add", "a comment to an issue"),
            ("Add", "new permissions to an existing role"),
            ("Add", "a field to an organization-owned project"),
            ("Add", "users"),
            ("Create", "users to a team"),
            ("Adds", "a user"),
        ] {
            assert!(!adds_member(verb, words(rest), || false), "{verb} {rest}");
        }
        // A path that names the target: `/goals/{goal_gid}/addFollowers`.
        assert!(adds_member("add", words("Followers"), || true));
        assert!(!adds_member("add", words("Followers"), || false));
        assert!(!adds_member("add", words("Comment"), || true));
    }
}
