//! The decision tree (the seed's J48): fitted by linfa-trees, kept as splits on
//! signal indices whose leaves are the cells calibration counts in.
//!
//! linfa-trees keeps only a predicted class per leaf, so the fitted tree is
//! copied into this form; each leaf's confidence is learned afterwards from
//! held-out pairs (see [`super::calibration`]).

use std::sync::Arc;

use anyhow::{ensure, Result};
use linfa::prelude::*;
use linfa_trees::{DecisionTree, SplitQuality};
use ndarray::{Array1, Array2};
use serde::{Deserialize, Serialize};

use super::estimator::{Estimator, Kind, Learner, Path, Step};
use twinpage_util::params::{Param, ParamValues};

/// The tree as a kind of estimator.
pub const KIND: Kind = Kind {
    name: "tree",
    about: "one decision tree (CART on linfa-trees), leaves calibrated on held-out pairs",
    params: &[MAX_DEPTH, MIN_LEAF_WEIGHT],
    learner: |values| {
        Ok(Box::new(
            TreeParams::from_values(values, TreeParams::default())?.check()?,
        ))
    },
    read: |fields| Ok(Arc::new(serde_json::from_str::<Tree>(fields)?)),
};

/// A tree's parameters, shared by every kind made of trees (each has its own defaults).
pub(super) const MAX_DEPTH: Param = Param {
    name: "max-depth",
    value_name: "N",
    help: "deepest level of a tree [default: 10 alone, 30 in a forest]",
    default: || None,
};

pub(super) const MIN_LEAF_WEIGHT: Param = Param {
    name: "min-leaf-weight",
    value_name: "W",
    help:
        "smallest class-weighted number of pairs in a tree's leaf [default: 5 alone, 1 in a forest]",
    default: || None,
};

/// A tree's parameters as given; [`TreeParams::check`] makes the ones that fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TreeParams {
    pub split_quality: Quality,
    pub max_depth: usize,
    /// Smallest (class-weighted) number of pairs in a leaf.
    pub min_leaf_weight: f32,
    pub min_impurity_decrease: f64,
}

/// How a split's quality is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Quality {
    Gini,
    Entropy,
}

impl Default for TreeParams {
    fn default() -> Self {
        TreeParams {
            split_quality: Quality::Gini,
            max_depth: 10,
            min_leaf_weight: 5.0,
            min_impurity_decrease: 1e-4,
        }
    }
}

impl TreeParams {
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    pub fn min_leaf_weight(mut self, weight: f32) -> Self {
        self.min_leaf_weight = weight;
        self
    }

    /// `defaults`, with the tree parameters given in `values`.
    pub(super) fn from_values(values: &ParamValues, defaults: TreeParams) -> Result<TreeParams> {
        let depth = values.optional(&MAX_DEPTH)?;
        let weight = values.optional(&MIN_LEAF_WEIGHT)?;
        Ok(defaults
            .max_depth(depth.unwrap_or(defaults.max_depth))
            .min_leaf_weight(weight.unwrap_or(defaults.min_leaf_weight)))
    }

    /// The parameters, if linfa would take them and they make sense.
    pub fn check(self) -> Result<ValidTreeParams> {
        ensure!(self.max_depth >= 1, "max depth must be at least 1");
        ensure!(
            self.min_leaf_weight.is_finite() && self.min_leaf_weight >= 1.0,
            "min leaf weight must be at least 1"
        );
        ensure!(
            self.min_impurity_decrease > 0.0,
            "min impurity decrease must be > 0 (linfa-trees requires it)"
        );
        Ok(ValidTreeParams(self))
    }
}

/// Checked tree parameters: the only way to fit a tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidTreeParams(TreeParams);

impl Learner for ValidTreeParams {
    /// linfa-trees' fit draws nothing at random: the seed is not needed.
    fn fit(&self, vectors: &[&[f64]], labels: &[bool], _seed: u64) -> Result<Arc<dyn Estimator>> {
        Ok(Arc::new(self.fit_tree(vectors, labels)?))
    }
}

impl ValidTreeParams {
    /// Fits a tree to labelled signal vectors.
    pub fn fit_tree(&self, vectors: &[&[f64]], labels: &[bool]) -> Result<Tree> {
        let params = self.0;
        let width = vectors.first().map_or(0, |v| v.len());
        let mut x = Array2::<f64>::zeros((vectors.len(), width));
        for (r, vector) in vectors.iter().enumerate() {
            for (c, &value) in vector.iter().enumerate() {
                x[[r, c]] = value;
            }
        }
        let y: Array1<usize> = labels.iter().map(|&l| usize::from(l)).collect();
        let weights = class_weights(&y);
        let dataset = Dataset::new(x, y).with_weights(weights);
        let quality = match params.split_quality {
            Quality::Gini => SplitQuality::Gini,
            Quality::Entropy => SplitQuality::Entropy,
        };
        let fitted = DecisionTree::params()
            .split_quality(quality)
            .max_depth(Some(params.max_depth))
            .min_weight_leaf(params.min_leaf_weight)
            .min_weight_split(2.0 * params.min_leaf_weight)
            .min_impurity_decrease(params.min_impurity_decrease)
            .fit(&dataset)?;
        Ok(Tree::from_linfa(&fitted, params))
    }
}

/// Balances the classes. The duplicate weight is nudged by one part in 10⁴ so
/// that no leaf ever holds exactly equal weights: linfa breaks such ties by hash
/// map order, which would make two fits of the same data differ.
fn class_weights(y: &Array1<usize>) -> Array1<f32> {
    let n = y.len() as f32;
    let positives = y.iter().filter(|&&l| l == 1).count() as f32;
    let w_pos = n / (2.0 * positives) * 1.0001;
    let w_neg = n / (2.0 * (n - positives));
    y.mapv(|l| if l == 1 { w_pos } else { w_neg })
}

/// A node: a split sends `value < threshold` left, as linfa does, else right.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Node {
    Split {
        signal: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
    /// A leaf: the calibration cell of the pairs that reach it.
    Leaf { leaf: usize },
}

/// Read by its fields rather than as serde's untagged enum, which buffers every node
/// of a model file before trying each variant on it (a fifth of a forest's load time).
impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        #[derive(Deserialize)]
        struct Fields {
            signal: Option<usize>,
            threshold: Option<f64>,
            left: Option<usize>,
            right: Option<usize>,
            leaf: Option<usize>,
        }
        match Fields::deserialize(deserializer)? {
            Fields {
                signal: Some(signal),
                threshold: Some(threshold),
                left: Some(left),
                right: Some(right),
                ..
            } => Ok(Node::Split {
                signal,
                threshold,
                left,
                right,
            }),
            Fields {
                leaf: Some(leaf), ..
            } => Ok(Node::Leaf { leaf }),
            _ => Err(serde::de::Error::custom(
                "a tree node is a split (signal, threshold, left, right) or a leaf (leaf)",
            )),
        }
    }
}

/// A decision tree over signal vectors; node 0 is the root.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub params: TreeParams,
    pub nodes: Vec<Node>,
}

impl Tree {
    /// Copies a fitted linfa tree.
    pub fn from_linfa(fitted: &DecisionTree<f64, usize>, params: TreeParams) -> Tree {
        let mut tree = Tree {
            params,
            nodes: Vec::new(),
        };
        let mut leaves = 0;
        tree.copy(fitted.root_node(), &mut leaves);
        tree
    }

    fn copy(&mut self, node: &linfa_trees::TreeNode<f64, usize>, leaves: &mut usize) -> usize {
        let index = self.nodes.len();
        let children = node.children();
        match (node.is_leaf(), children[0], children[1]) {
            (false, Some(left), Some(right)) => {
                let (signal, threshold, _) = node.split();
                self.nodes.push(Node::Leaf { leaf: usize::MAX });
                let left = self.copy(left, leaves);
                let right = self.copy(right, leaves);
                self.nodes[index] = Node::Split {
                    signal,
                    threshold,
                    left,
                    right,
                };
            }
            _ => {
                self.nodes.push(Node::Leaf { leaf: *leaves });
                *leaves += 1;
            }
        }
        index
    }

    /// The leaf a vector reaches and the steps it took.
    pub fn route(&self, x: &[f64]) -> (usize, Vec<Step>) {
        let mut steps = Vec::new();
        let leaf = self.walk(x, |step| steps.push(step));
        (leaf, steps)
    }

    /// The nodes `x` passes through, root first, leaf last.
    pub fn node_path(&self, x: &[f64]) -> Vec<usize> {
        let mut at = 0;
        let mut path = vec![at];
        while let Node::Split {
            signal,
            threshold,
            left,
            right,
        } = self.nodes[at]
        {
            at = if x[signal] < threshold { left } else { right };
            path.push(at);
        }
        path
    }

    /// Walks `x` from the root to its leaf, handing each step to `on_step`.
    fn walk(&self, x: &[f64], mut on_step: impl FnMut(Step)) -> usize {
        let mut at = 0;
        loop {
            match self.nodes[at] {
                Node::Leaf { leaf } => return leaf,
                Node::Split {
                    signal,
                    threshold,
                    left,
                    right,
                } => {
                    let value = x[signal];
                    let went_left = value < threshold;
                    on_step(Step {
                        signal,
                        threshold,
                        value,
                        went_left,
                    });
                    at = if went_left { left } else { right };
                }
            }
        }
    }

    /// A tree grown on a subset of the signals names that subset's positions;
    /// this renames them to the full vector's (`signals[i]` for position i).
    pub(super) fn rename_signals(&mut self, signals: &[usize]) {
        for node in &mut self.nodes {
            if let Node::Split { signal, .. } = node {
                *signal = signals[*signal];
            }
        }
    }

    /// Depth of the deepest leaf (the root alone has depth 0).
    pub fn depth(&self) -> usize {
        fn depth_of(tree: &Tree, at: usize) -> usize {
            match tree.nodes[at] {
                Node::Leaf { .. } => 0,
                Node::Split { left, right, .. } => {
                    1 + depth_of(tree, left).max(depth_of(tree, right))
                }
            }
        }
        if self.nodes.is_empty() {
            0
        } else {
            depth_of(self, 0)
        }
    }
}

impl Estimator for Tree {
    fn kind(&self) -> &'static str {
        KIND.name
    }

    fn cells(&self) -> usize {
        let leaf = |node: &Node| matches!(node, Node::Leaf { .. });
        self.nodes.iter().filter(|node| leaf(node)).count()
    }

    fn cell(&self, x: &[f64]) -> usize {
        self.walk(x, |_| {})
    }

    fn trees(&self) -> Vec<&Tree> {
        vec![self]
    }

    fn paths(&self, x: &[f64]) -> Vec<Path> {
        vec![Path {
            label: "the tree".into(),
            steps: self.route(x).1,
        }]
    }

    fn validate(&self, signals: usize) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("the tree has no nodes".into());
        }
        let cells = self.cells();
        for (i, node) in self.nodes.iter().enumerate() {
            match *node {
                Node::Leaf { leaf } if leaf >= cells => {
                    return Err(format!("node {i} names leaf {leaf}, which does not exist"))
                }
                Node::Split { signal, .. } if signal >= signals => {
                    return Err(format!(
                        "node {i} splits on signal {signal}, beyond the {signals} signals"
                    ))
                }
                Node::Split {
                    left,
                    right,
                    threshold,
                    ..
                } if left <= i
                    || right <= i
                    || left >= self.nodes.len()
                    || right >= self.nodes.len()
                    || !threshold.is_finite() =>
                {
                    return Err(format!("node {i} has bad children or threshold"))
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn summary(&self) -> String {
        format!(
            "tree: {} nodes, {} leaves, depth {}",
            self.nodes.len(),
            self.cells(),
            self.depth()
        )
    }

    fn learner(&self) -> Result<Box<dyn Learner>> {
        Ok(Box::new(self.params.check()?))
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a tree serialises")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// x0 < 0.5 ? leaf 0 : (x1 < 2 ? leaf 1 : leaf 2)
    pub(crate) fn small_tree() -> Tree {
        Tree {
            params: TreeParams::default(),
            nodes: vec![
                Node::Split {
                    signal: 0,
                    threshold: 0.5,
                    left: 1,
                    right: 2,
                },
                Node::Leaf { leaf: 0 },
                Node::Split {
                    signal: 1,
                    threshold: 2.0,
                    left: 3,
                    right: 4,
                },
                Node::Leaf { leaf: 1 },
                Node::Leaf { leaf: 2 },
            ],
        }
    }

    #[test]
    fn routes_left_below_threshold() {
        let t = small_tree();
        assert_eq!(t.cell(&[0.2, 9.0]), 0);
        assert_eq!(t.cell(&[0.5, 1.0]), 1);
        let (leaf, steps) = t.route(&[0.7, 3.0]);
        assert_eq!(leaf, 2);
        assert_eq!(steps.len(), 2);
        assert!(!steps[0].went_left && !steps[1].went_left);
        assert_eq!((t.cells(), t.depth()), (3, 2));
        assert!(t.validate(2).is_ok());
        assert!(t.validate(1).is_err());
    }

    #[test]
    fn fits_through_linfa_and_round_trips() {
        let vectors: [&[f64]; 6] = [&[0.0], &[0.1], &[0.2], &[0.9], &[1.0], &[1.1]];
        let labels = [false, false, false, true, true, true];
        let params = TreeParams::default().min_leaf_weight(1.0).check().unwrap();
        let fitted = params.fit(&vectors, &labels, 0).unwrap();
        assert_eq!(fitted.cells(), 2);
        assert_ne!(fitted.cell(&[0.0]), fitted.cell(&[1.0]));
        let back = (KIND.read)(&fitted.to_json().to_string()).unwrap();
        assert_eq!(back.to_json(), fitted.to_json());
    }

    #[test]
    fn nodes_read_as_splits_or_leaves_and_nothing_else() {
        let nodes: Vec<Node> = serde_json::from_str(
            r#"[{"signal":1,"threshold":0.5,"left":1,"right":2},{"leaf":0},{"leaf":1}]"#,
        )
        .unwrap();
        assert_eq!(
            nodes[0],
            Node::Split {
                signal: 1,
                threshold: 0.5,
                left: 1,
                right: 2
            }
        );
        assert_eq!(nodes[2], Node::Leaf { leaf: 1 });
        let half_split = serde_json::from_str::<Node>(r#"{"signal":1,"threshold":0.5}"#);
        assert!(half_split.unwrap_err().to_string().contains("a split"));
    }

    #[test]
    fn only_checked_params_fit() {
        assert!(TreeParams::default().check().is_ok());
        assert!(TreeParams::default().max_depth(0).check().is_err());
        assert!(TreeParams::default().min_leaf_weight(0.0).check().is_err());
        let mut values = ParamValues::default();
        values.set("max-depth", "0");
        assert!((KIND.learner)(&values).is_err());
    }
}
