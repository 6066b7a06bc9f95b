//! Flags for parameters that methods declare (see `util::params`): every
//! declared parameter of a registry becomes a `--flag`, and the values given
//! come back by name for the chosen method to parse and check.

use std::marker::PhantomData;
use std::str::FromStr;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Arg, ArgMatches, Command};

use twinpage::util::params::{Param, ParamValues};
use twinpage::util::Choice;

/// A registry whose members declare parameters.
pub(super) trait Declares {
    /// Every declared parameter, each name once (members may share one).
    fn params() -> Vec<Param>;
}

/// The candidate methods' parameters (`candidates`, `baseline`).
pub(super) struct Methods;

impl Declares for Methods {
    fn params() -> Vec<Param> {
        unique(twinpage::candidates::METHODS.iter().flat_map(|m| m.params))
    }
}

/// The estimators' parameters (`train`).
pub(super) struct Estimators;

impl Declares for Estimators {
    fn params() -> Vec<Param> {
        unique(twinpage::model::KINDS.iter().flat_map(|k| k.params))
    }
}

/// A flag taking one of `names` (each with its help), parsed into the library's type.
pub(super) fn one_of<T>(
    names: impl IntoIterator<Item = (&'static str, &'static str)>,
) -> impl TypedValueParser<Value = T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    let values = names
        .into_iter()
        .map(|(name, help)| PossibleValue::new(name).help(help));
    PossibleValuesParser::new(values).try_map(|s| s.parse::<T>().map_err(|e| e.to_string()))
}

/// A flag taking one of the library's named values (see `util::Choice`).
pub(super) fn choice<T: Choice + Clone + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::CHOICES
        .iter()
        .map(|(_, name, help)| PossibleValue::new(*name).help(*help));
    PossibleValuesParser::new(values).map(|name| T::from_name(&name).expect("a listed name"))
}

fn unique<'a>(params: impl Iterator<Item = &'a Param>) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    for param in params {
        if !out.iter().any(|p| p.name == param.name) {
            out.push(*param);
        }
    }
    out
}

/// The values given for the parameters `D` declares.
pub(super) struct Declared<D> {
    pub values: ParamValues,
    registry: PhantomData<D>,
}

impl<D: Declares> clap::FromArgMatches for Declared<D> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut values = ParamValues::default();
        for param in D::params() {
            if let Some(value) = matches.get_one::<String>(param.name) {
                values.set(param.name, value.as_str());
            }
        }
        Ok(Declared {
            values,
            registry: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<D: Declares> clap::Args for Declared<D> {
    fn augment_args(command: Command) -> Command {
        D::params().into_iter().fold(command, |command, param| {
            let help = match (param.default)() {
                Some(default) => format!("{} [default: {default}]", param.help),
                None => param.help.to_string(),
            };
            command.arg(
                Arg::new(param.name)
                    .long(param.name)
                    .value_name(param.value_name)
                    .help(help),
            )
        })
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}
