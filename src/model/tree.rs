//! The fitted tree as the model file keeps it: splits on named signals, and leaves
//! that carry calibrated label counts instead of a bare class.
//!
//! linfa-trees fits the tree but keeps only a predicted class per leaf, so the
//! fitted tree is copied into this form, and each leaf then learns its
//! P(duplicate) from held-out pairs (see [`super::calibration`]).

use serde::{Deserialize, Serialize};

/// A node: a split sends `value < threshold` left, as linfa does, else right.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Node {
    Split {
        signal: usize,
        threshold: f64,
        left: usize,
        right: usize,
    },
    Leaf {
        leaf: usize,
    },
}

/// What a leaf knows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Leaf {
    /// Training rows that reached the leaf, by label.
    pub fit_duplicates: u32,
    pub fit_distinct: u32,
    /// Held-out calibration pairs that reached the leaf, by label.
    pub calibration_duplicates: u32,
    pub calibration_distinct: u32,
    /// The calibrated confidence that a pair reaching this leaf is a duplicate.
    pub p_duplicate: f64,
}

/// A decision tree over signal vectors; node 0 is the root.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    pub nodes: Vec<Node>,
    pub leaves: Vec<Leaf>,
}

/// One step of a pair's way through the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub signal: usize,
    pub threshold: f64,
    pub value: f64,
    pub went_left: bool,
}

impl Tree {
    /// Copies a fitted linfa tree.
    pub fn from_linfa(fitted: &linfa_trees::DecisionTree<f64, usize>) -> Tree {
        let mut tree = Tree::default();
        tree.copy(fitted.root_node());
        tree
    }

    fn copy(&mut self, node: &linfa_trees::TreeNode<f64, usize>) -> usize {
        let index = self.nodes.len();
        let children = node.children();
        match (node.is_leaf(), children[0], children[1]) {
            (false, Some(left), Some(right)) => {
                let (signal, threshold, _) = node.split();
                self.nodes.push(Node::Leaf { leaf: usize::MAX });
                let left = self.copy(left);
                let right = self.copy(right);
                self.nodes[index] = Node::Split {
                    signal,
                    threshold,
                    left,
                    right,
                };
            }
            _ => {
                self.nodes.push(Node::Leaf {
                    leaf: self.leaves.len(),
                });
                self.leaves.push(Leaf::default());
            }
        }
        index
    }

    /// The leaf a vector reaches and the steps it took.
    pub fn route(&self, x: &[f64]) -> (usize, Vec<Step>) {
        let mut steps = Vec::new();
        let mut at = 0;
        loop {
            match self.nodes[at] {
                Node::Leaf { leaf } => return (leaf, steps),
                Node::Split {
                    signal,
                    threshold,
                    left,
                    right,
                } => {
                    let value = x[signal];
                    let went_left = value < threshold;
                    steps.push(Step {
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

    pub fn leaf_of(&self, x: &[f64]) -> usize {
        self.route(x).0
    }

    pub fn p_duplicate(&self, x: &[f64]) -> f64 {
        self.leaves[self.leaf_of(x)].p_duplicate
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

    /// Checks that the structure is a tree over `signals` signals (a model file
    /// could have been edited by hand).
    pub fn validate(&self, signals: usize) -> Result<(), String> {
        if self.nodes.is_empty() {
            return Err("the tree has no nodes".into());
        }
        for (i, node) in self.nodes.iter().enumerate() {
            match *node {
                Node::Leaf { leaf } if leaf >= self.leaves.len() => {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x0 < 0.5 ? leaf 0 : (x1 < 2 ? leaf 1 : leaf 2)
    pub(crate) fn small_tree() -> Tree {
        Tree {
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
            leaves: vec![Leaf::default(); 3],
        }
    }

    #[test]
    fn routes_left_below_threshold() {
        let t = small_tree();
        assert_eq!(t.leaf_of(&[0.2, 9.0]), 0);
        assert_eq!(t.leaf_of(&[0.5, 1.0]), 1);
        let (leaf, steps) = t.route(&[0.7, 3.0]);
        assert_eq!(leaf, 2);
        assert_eq!(steps.len(), 2);
        assert!(!steps[0].went_left && !steps[1].went_left);
        assert_eq!(t.depth(), 2);
        assert!(t.validate(2).is_ok());
        assert!(t.validate(1).is_err());
    }

    #[test]
    fn copies_a_linfa_tree() {
        use linfa::prelude::*;
        use linfa_trees::DecisionTree;
        use ndarray::{array, Array2};
        let x: Array2<f64> = array![[0.0], [0.1], [0.2], [0.9], [1.0], [1.1]];
        let y = array![0usize, 0, 0, 1, 1, 1];
        let fitted = DecisionTree::params().fit(&Dataset::new(x, y)).unwrap();
        let t = Tree::from_linfa(&fitted);
        assert_eq!(t.leaves.len(), 2);
        assert_ne!(t.leaf_of(&[0.0]), t.leaf_of(&[1.0]));
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Tree>(&json).unwrap(), t);
    }
}
