//! Input: the files a check reads, turned into models.
//!
//! [`source`] parses every file once into a spanned tree (YAML and JSON alike); [`read`]
//! reads typed values out of such a tree with every error at once; [`load`] gathers a
//! description's files, following `$ref`s within the limits; [`model`] is the operations
//! and the facts retrying depends on; [`policy`] is the retry policy file and each
//! operation's effective policy.
//!
//! Nothing here knows about rules or outputs: the modules of [`crate::analysis`] and
//! [`crate::rendering`] build on these, never the other way round.

pub mod load;
pub mod model;
pub mod policy;
pub(crate) mod read;
pub mod source;
