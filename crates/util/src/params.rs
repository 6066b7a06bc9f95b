//! Parameters a method declares, so that the command line can offer them
//! without knowing the method.
//!
//! A candidate method or an estimator lists its parameters ([`Param`]: flag
//! name, meaning, default); the command line turns every declared parameter into
//! a `--flag`, hands the values given back as [`ParamValues`], and the method
//! parses them into its own typed, checked parameters. Adding a method then adds
//! its flags, with no edit to the command layer. Defaults are read from the
//! method's typed defaults, so each is stated once.

use std::collections::BTreeMap;
use std::str::FromStr;

use anyhow::{anyhow, Result};

/// One declared parameter.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// The flag's name, without dashes (`hamming` is `--hamming`).
    pub name: &'static str,
    /// What its value is, for `--help` (`K`, `N`, `BITS`).
    pub value_name: &'static str,
    /// What it means, for `--help`.
    pub help: &'static str,
    /// Its default as text (`None`: unset unless given), from the typed default.
    pub default: fn() -> Option<String>,
}

/// Values given for declared parameters, by name, as text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamValues(BTreeMap<String, String>);

impl ParamValues {
    /// Gives `param` the value `value`.
    pub fn set(&mut self, param: &str, value: impl Into<String>) -> &mut Self {
        self.0.insert(param.to_string(), value.into());
        self
    }

    /// Whether a value was given for `param` (its default aside).
    pub fn given(&self, param: &str) -> bool {
        self.0.contains_key(param)
    }

    /// The value given for `param`, or its default, parsed; an error names the
    /// flag and the value.
    pub fn get<T: FromStr>(&self, param: &Param) -> Result<T> {
        self.optional(param)?
            .ok_or_else(|| anyhow!("--{} needs a value", param.name))
    }

    /// Refuses values for parameters that are not among `params` (they would be
    /// silently ignored): `owner` is what was chosen, e.g. "estimator tree".
    pub fn check_known(&self, params: &[Param], owner: &str) -> Result<()> {
        match self
            .0
            .keys()
            .find(|name| !params.iter().any(|p| p.name == *name))
        {
            Some(name) => Err(anyhow!("--{name} is not a parameter of {owner}")),
            None => Ok(()),
        }
    }

    /// Like [`ParamValues::get`] for a parameter that may stay unset.
    pub fn optional<T: FromStr>(&self, param: &Param) -> Result<Option<T>> {
        let Some(text) = self.0.get(param.name).cloned().or_else(param.default) else {
            return Ok(None);
        };
        text.trim()
            .parse()
            .map(Some)
            .map_err(|_| anyhow!("--{} {text}: not a valid value", param.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPTH: Param = Param {
        name: "depth",
        value_name: "N",
        help: "how deep",
        default: || Some(10.to_string()),
    };
    const LIMIT: Param = Param {
        name: "limit",
        value_name: "N",
        help: "an optional bound",
        default: || None,
    };

    #[test]
    fn given_values_win_over_defaults() {
        let mut values = ParamValues::default();
        assert_eq!(values.get::<u32>(&DEPTH).unwrap(), 10);
        assert_eq!(values.optional::<u32>(&LIMIT).unwrap(), None);
        values.set("depth", "3").set("limit", "7");
        assert_eq!(values.get::<u32>(&DEPTH).unwrap(), 3);
        assert_eq!(values.optional::<u32>(&LIMIT).unwrap(), Some(7));
    }

    #[test]
    fn bad_values_name_their_flag() {
        let mut values = ParamValues::default();
        values.set("depth", "deep");
        let e = values.get::<u32>(&DEPTH).unwrap_err().to_string();
        assert_eq!(e, "--depth deep: not a valid value");
        assert!(values.get::<u32>(&LIMIT).is_err());
        assert!(values.check_known(&[DEPTH], "the test").is_ok());
        values.set("limit", "1");
        let e = values.check_known(&[DEPTH], "the test").unwrap_err();
        assert_eq!(e.to_string(), "--limit is not a parameter of the test");
    }
}
