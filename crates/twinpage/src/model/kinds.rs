//! The kinds of estimator there are, by name.

use anyhow::{bail, Result};

use super::{estimator, forest, tree};

/// Every kind of estimator, the default first: a new kind is one line here.
pub const KINDS: &[estimator::Kind] = &[forest::KIND, tree::KIND];

/// The kind of estimator called `name`.
pub fn estimator_named(name: &str) -> Result<&'static estimator::Kind> {
    match KINDS.iter().find(|k| k.name == name) {
        Some(kind) => Ok(kind),
        None => {
            let known: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
            bail!("no estimator `{name}` (known: {})", known.join(", "))
        }
    }
}
