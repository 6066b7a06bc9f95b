//! The seam for another model: what an estimator is, how one is fitted, and the
//! kinds a model file can hold.
//!
//! An [`Estimator`] puts a signal vector into one of its *cells* (a tree's leaves)
//! and can say which tests put it there. It gives no probability of its own:
//! [`super::calibration`] learns each cell's share of duplicates on held-out pairs,
//! whatever the estimator, as linfa's Platt scaling wraps any classifier. A
//! [`Learner`] is a kind's checked parameters: the only thing that can fit one.
//!
//! A new kind of estimator is one new file that implements both traits and
//! declares a [`Kind`], plus its line in [`super::kinds::KINDS`].

use std::fmt::Debug;
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use twinpage_util::params::{Param, ParamValues};

use super::tree::Tree;

/// A fitted model of the signal space.
pub trait Estimator: Debug + Send + Sync {
    /// The kind's name (as in [`super::kinds::KINDS`] and the model file).
    fn kind(&self) -> &'static str;
    /// Number of cells; cells are `0..cells()`.
    fn cells(&self) -> usize;
    /// The cell a signal vector falls into.
    fn cell(&self, x: &[f64]) -> usize;
    /// Whether the cells are bins of one score, in order (calibration then keeps
    /// the confidence monotone across them).
    fn ordered(&self) -> bool {
        false
    }
    /// The paths of tests that lead `x` to its cell: one for a tree, the most
    /// representative trees' for a forest.
    fn paths(&self, x: &[f64]) -> Vec<Path>;
    /// How the members of an ensemble vote on `x`; `None` for a single model.
    fn committee(&self, _x: &[f64]) -> Option<Committee> {
        None
    }
    /// The cell of `x` and the committee's vote on it, together: an ensemble
    /// overrides this to walk its members once.
    fn reading(&self, x: &[f64]) -> (usize, Option<Committee>) {
        (self.cell(x), self.committee(x))
    }
    /// Checks a structure read from a file against the number of signals (a
    /// model file can be edited by hand).
    fn validate(&self, signals: usize) -> Result<(), String>;
    /// One line on its size, for the person who trained it.
    fn summary(&self) -> String;
    /// Its parameters again, checked: what fits its successor.
    fn learner(&self) -> Result<Box<dyn Learner>>;
    /// Its fields as the model file keeps them (`kind` is added beside them).
    fn to_json(&self) -> serde_json::Value;
    /// Its decision trees: itself for a tree, the members of a forest; none for an
    /// estimator that is not made of trees. What the figures count and draw.
    fn trees(&self) -> Vec<&Tree> {
        Vec::new()
    }
    /// What each signal added to the score of `x` on its way through the
    /// estimator, when it can say (a forest whose file keeps its node counts).
    fn contributions(&self, _x: &[f64]) -> Option<Contributions> {
        None
    }
}

/// A score taken apart by signal (Saabas' tree-path contributions): `base` plus
/// the sum of `by_signal` is `output`, the estimator's score before calibration.
#[derive(Debug, Clone, PartialEq)]
pub struct Contributions {
    /// The score of a pair that took no test (the trees' mean root value).
    pub base: f64,
    pub output: f64,
    /// One per signal, in vector order.
    pub by_signal: Vec<f64>,
}

/// Checked parameters of a kind of estimator.
pub trait Learner {
    /// Fits an estimator to labelled signal vectors (all of one width, finite);
    /// the same seed gives the same estimator.
    fn fit(&self, vectors: &[&[f64]], labels: &[bool], seed: u64) -> Result<Arc<dyn Estimator>>;
    /// Whether calibration learns from the fitted rows themselves, each read out
    /// of bag ([`Learner::fit_out_of_bag`]), so that no pair is held out for it.
    fn out_of_bag(&self) -> bool {
        false
    }
    /// Fits as [`Learner::fit`] does, and reads each row as the members whose
    /// sample lacked it read it: its cell and their vote (None for a row every
    /// member saw). Only a learner whose [`Learner::out_of_bag`] is true can.
    fn fit_out_of_bag(
        &self,
        _vectors: &[&[f64]],
        _labels: &[bool],
        _seed: u64,
    ) -> Result<FittedOutOfBag> {
        anyhow::bail!("this kind of estimator cannot read its rows out of bag")
    }
}

/// Where an estimator puts a vector: its cell, and an ensemble's vote on it.
pub type Reading = (usize, Option<Committee>);

/// An estimator, and each of its training rows read out of bag (None: every
/// member saw it).
pub type FittedOutOfBag = (Arc<dyn Estimator>, Vec<Option<Reading>>);

/// One test on a vector's way to its cell: `value < threshold` went left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub signal: usize,
    pub threshold: f64,
    pub value: f64,
    pub went_left: bool,
}

/// A path of tests through one tree, and what the tree is.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub label: String,
    pub steps: Vec<Step>,
}

/// How an ensemble's members vote on one pair.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Committee {
    pub trees: usize,
    /// Members whose own output says duplicate (≥ 0.5).
    pub duplicate_votes: usize,
    /// The members' mean output (before calibration).
    pub mean: f64,
    /// Standard deviation of the members' outputs: their disagreement.
    pub spread: f64,
}

/// A kind of estimator: its name, its parameters, and how to make one.
pub struct Kind {
    pub name: &'static str,
    /// What it is, for `--help`.
    pub about: &'static str,
    pub params: &'static [Param],
    /// Checked parameters from the values given (defaults for the rest).
    pub learner: fn(&ParamValues) -> Result<Box<dyn Learner>>,
    /// An estimator of this kind from its fields in a model file (a JSON object).
    pub read: fn(&str) -> Result<Arc<dyn Estimator>>,
}

/// How the model file keeps an estimator: `{"kind": NAME, ...its fields}`.
pub(crate) mod json {
    use super::*;
    use serde::de::Error as _;
    use serde::ser::Error as _;

    pub fn serialize<S: serde::Serializer>(
        estimator: &Arc<dyn Estimator>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut fields = estimator.to_json();
        let Some(object) = fields.as_object_mut() else {
            return Err(S::Error::custom("an estimator serialises to an object"));
        };
        object.insert("kind".into(), estimator.kind().into());
        fields.serialize(serializer)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Arc<dyn Estimator>, D::Error> {
        // The fields are read once, straight into the estimator's own type: a tree of
        // JSON values first would take most of the time a forest takes to load.
        let fields = <Box<serde_json::value::RawValue>>::deserialize(deserializer)?;
        #[derive(serde::Deserialize)]
        struct Named {
            kind: Option<String>,
        }
        let named: Named = serde_json::from_str(fields.get()).map_err(D::Error::custom)?;
        let name = named
            .kind
            .ok_or_else(|| D::Error::custom("the estimator names no `kind`"))?;
        let kind = super::super::kinds::estimator_named(&name).map_err(D::Error::custom)?;
        (kind.read)(fields.get()).map_err(|e| D::Error::custom(format!("{e:#}")))
    }
}
