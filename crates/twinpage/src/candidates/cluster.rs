//! Clusters of near-duplicates: union-find over the pairs decided duplicate
//! (Pugh: sort, then union-find, assuming similarity is transitive).
//!
//! Transitivity is where it goes wrong: A ~ B and B ~ C put A and C together
//! however different they are, and a few borderline pairs can chain thousands of
//! pages into one cluster. So a cluster above a size limit is not silently kept
//! as one: it is marked `too-large` for a person (or a stricter threshold) to
//! split, while its pairs stay in the scored file.
//!
//! A cluster's id is derived from its smallest member (by document key), so it
//! does not depend on the order of the pairs and stays the same when unrelated
//! documents are added.

use std::collections::BTreeMap;

use twinpage_util::hash::fnv1a;
use twinpage_util::UnionFind;

/// One cluster of documents.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    pub id: String,
    /// Members, sorted by key.
    pub members: Vec<String>,
    /// Above the size limit: a chain to be checked, not a cluster to trust.
    pub too_large: bool,
}

/// Clusters of `documents` (keys, any order, duplicates allowed) joined by `pairs`
/// of keys; every document is in exactly one cluster (possibly alone). Sorted by id.
pub fn clusters<'a>(
    documents: impl IntoIterator<Item = &'a str>,
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    max_size: usize,
) -> Vec<Cluster> {
    let mut index: BTreeMap<&str, u32> = documents.into_iter().map(|d| (d, 0)).collect();
    let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
    for &(a, b) in &pairs {
        index.entry(a).or_insert(0);
        index.entry(b).or_insert(0);
    }
    let keys: Vec<&str> = index.keys().copied().collect();
    for (i, v) in index.values_mut().enumerate() {
        *v = i as u32;
    }
    let mut sets = UnionFind::new(keys.len());
    for (a, b) in pairs {
        sets.union(index[a], index[b]);
    }
    // Keys are visited in order, so each root's first member is its smallest.
    let mut by_root: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (i, key) in keys.iter().enumerate() {
        let root = sets.find(i as u32);
        by_root.entry(root).or_default().push(key.to_string());
    }
    let mut out: Vec<Cluster> = by_root
        .into_values()
        .map(|members| Cluster {
            id: format!("c{:016x}", fnv1a(members[0].as_bytes())),
            too_large: members.len() > max_size,
            members,
        })
        .collect();
    out.sort_by(|x, y| x.id.cmp(&y.id));
    out
}

/// Writes `cluster,size,status,url,html`, one row per document; `urls` gives
/// each document's URL by its key.
pub fn write_clusters(
    w: &mut dyn std::io::Write,
    clusters: &[Cluster],
    urls: &BTreeMap<String, String>,
) -> anyhow::Result<()> {
    let mut csv = csv::Writer::from_writer(w);
    csv.write_record(["cluster", "size", "status", "url", "html"])?;
    for c in clusters {
        let status = if c.too_large { "too-large" } else { "ok" };
        let size = c.members.len().to_string();
        for m in &c.members {
            let url = urls.get(m).map_or("", String::as_str);
            csv.write_record([c.id.as_str(), &size, status, url, m])?;
        }
    }
    csv.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(cs: &[Cluster]) -> Vec<Vec<String>> {
        let mut m: Vec<Vec<String>> = cs.iter().map(|c| c.members.clone()).collect();
        m.sort();
        m
    }

    #[test]
    fn components_of_a_known_graph() {
        // Two triangles joined by nothing, a chain, a loner, a self-loop.
        let pairs = [
            ("a", "b"),
            ("b", "c"),
            ("c", "a"),
            ("x", "y"),
            ("y", "z"),
            ("z", "w"),
            ("s", "s"),
        ];
        let cs = clusters(["lonely", "a"], pairs, 10);
        assert_eq!(
            members(&cs),
            [
                vec!["a", "b", "c"],
                vec!["lonely"],
                vec!["s"],
                vec!["w", "x", "y", "z"]
            ]
        );
        assert!(cs.iter().all(|c| !c.too_large));
    }

    #[test]
    fn ids_do_not_depend_on_pair_order_or_unrelated_documents() {
        let one = clusters([], [("p", "q"), ("q", "r")], 10);
        let two = clusters(["zzz"], [("r", "q"), ("q", "p")], 10);
        let id = |cs: &[Cluster]| cs.iter().find(|c| c.members[0] == "p").unwrap().id.clone();
        assert_eq!(id(&one), id(&two));
    }

    #[test]
    fn chaining_guard_marks_long_chains() {
        // A chain of 50 documents: each pair is close, the ends are not.
        let names: Vec<String> = (0..50).map(|i| format!("d{i:02}")).collect();
        let pairs: Vec<(&str, &str)> = names
            .windows(2)
            .map(|w| (w[0].as_str(), w[1].as_str()))
            .collect();
        let mut pairs_with_small = pairs.clone();
        pairs_with_small.push(("e1", "e2"));
        let cs = clusters([], pairs_with_small, 20);
        let big: Vec<&Cluster> = cs.iter().filter(|c| c.too_large).collect();
        assert_eq!(big.len(), 1);
        assert_eq!(big[0].members.len(), 50);
        assert!(cs.iter().any(|c| !c.too_large && c.members.len() == 2));
    }
}
