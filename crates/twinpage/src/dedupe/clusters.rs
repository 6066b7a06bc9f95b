//! Clusters that do not chain.
//!
//! Union-find over the pairs judged duplicate joins A and C when A ~ B and B ~ C,
//! however different A and C are: through a wall, an empty render or a run of
//! borderline pairs, thousands of pages end up in one cluster. Here a document is
//! in a cluster because it was judged a duplicate **of the cluster's center**, and
//! judged apart from none of its members:
//!
//! 1. the pairs judged duplicate (or left to review at p ≥ 0.8: joined, marked
//!    unsure) make components, as union-find does;
//! 2. in each component the center is chosen: in a component of up to
//!    [`MEMBERS_CHECKED_UP_TO`] distinct bodies (its pairs all judged first, in one
//!    verification round) the member judged a sure duplicate of most others; in a
//!    bigger one the best document to keep (`keep.rs`), whose pairs with members
//!    never judged are scored first. A copy of one article that a site also
//!    published whole is a duplicate of that page only; gathered around it, the
//!    article's other copies would be turned out. Every member judged a duplicate of
//!    the center joins. A member it holds only unsure stays out when it was judged a
//!    sure duplicate of a member left out: a sure judgement outweighs an unsure one.
//!    Nor do two members judged apart stay together (page 1 and page 2 of an article
//!    are each a duplicate of a site that copied the whole article): of two at odds,
//!    the one at odds with more leaves, then the one with fewer sure duplicates among
//!    them;
//! 3. the cluster keeps its best document (`keep.rs`); the members left make the
//!    component's next cluster, and so on. So every member of a cluster was judged
//!    against its center, and (up to [`MEMBERS_CHECKED_UP_TO`] distinct bodies)
//!    against the others.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use anyhow::{anyhow, bail, Result};

use super::keep::{self, Facts};
use crate::document::rows::RowReader;
use crate::model::Decision;
use crate::pipeline::cascade::DECIDED_FETCHED;
use crate::pipeline::score::{cores_apart, guarded};
use twinpage_util::hash::fnv1a;
use twinpage_util::UnionFind;

/// A pair left to review joins the cluster (marked unsure) from this p_duplicate.
/// Not 0.5: a wrong join merges two groups of copies, and each verification round
/// it brings grows the component. Remixes of one template (different articles,
/// 80 % of their text shared) score 0.53–0.80 with the shipped models: on the
/// 10,000-page benchmark crawl they joined 663 pairs of different groups at 0.5
/// and 375 at 0.7 (10 verification rounds, 32 pages unsettled), none at 0.8, where
/// the planted pairs in one cluster were 0.991, 0.987 and 0.990.
pub const UNSURE_JOINS_FROM: f64 = 0.8;

/// Two members of a cluster judged below this p_duplicate are held apart (a date
/// line changed scores about 0.49; two halves of one article 0.06–0.21).
pub const APART_BELOW: f64 = 0.25;

/// What a scored pair says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    pub decision: Decision,
    pub p_duplicate: f64,
    /// Sent to review because both sides show a wall (`decided_by` `wall:…`), because
    /// neither holds the other's core (`guard:cores-not-shared`), or because nothing
    /// but the model tells them apart (`guard:same-text`).
    pub guarded: bool,
    /// Decided by the cascade's fetched-only stage (`decided_by` `fetched`),
    /// without the rendered bodies.
    pub fetched_only: bool,
    /// How much of one side's core content the other holds (`core_in_other`), when
    /// known.
    pub core_in_other: Option<f64>,
}

impl Judgement {
    /// Whether the pair joins a cluster: decided duplicate, or left to review at
    /// p ≥ [`UNSURE_JOINS_FROM`] but not by a guard (a wall both sides show, cores
    /// neither holds).
    pub fn joins(self) -> bool {
        match self.decision {
            Decision::Duplicate => true,
            Decision::Review => self.p_duplicate >= UNSURE_JOINS_FROM && !self.guarded,
            Decision::Distinct => false,
        }
    }

    /// Whether the pair was decided duplicate (not left to review).
    fn sure(self) -> bool {
        self.decision == Decision::Duplicate
    }

    /// Whether the pair keeps two members of a cluster apart: not decided
    /// duplicate, and p below [`APART_BELOW`], or below 0.5 with cores neither
    /// holds ([`cores_apart`]): two pages carrying different parts of one article,
    /// each a copy of a page holding it whole, score p up to 0.29, as copies of one
    /// page do. A fixed p, not the model's distinct threshold: a model's threshold
    /// moves as it is retrained (0.21, then 0.29), and two copies of one page that a
    /// borderline call parts would each be turned out of the cluster their copies
    /// agree on.
    fn apart(self) -> bool {
        let parts_of_a_whole = self.p_duplicate < 0.5 && cores_apart(self.core_in_other);
        !self.sure() && (self.p_duplicate < APART_BELOW || parts_of_a_whole)
    }
}

/// Judgements by pair of document bodies (their `html` as written, in byte order).
pub type Judged = HashMap<(String, String), Judgement>;

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// A document of the run: its body (`html` as written), where it was read
/// (`FILE#OFFSET` for an archive record), and what the keep rule knows.
#[derive(Debug, Clone)]
pub struct Member {
    pub html: String,
    pub source: String,
    pub facts: Facts,
}

/// How a document ended in its cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub cluster: String,
    pub keep: bool,
    /// `kept`, `duplicate` (judged so against the center; the center, against the
    /// kept page), `unsure` (left to review at p ≥ 0.8), `identical` (the same
    /// bytes), or `alone`.
    pub joined: String,
    /// For the kept document, the keep rule that chose it over the runner-up.
    pub why: String,
}

/// Where the clustering stands: each document's place once known, and the pairs
/// to judge before the rest can be placed.
#[derive(Debug, Default)]
pub struct Plan {
    pub placed: Vec<Option<Placed>>,
    /// Document pairs (center, member) not judged yet.
    pub needed: Vec<(usize, usize)>,
    /// Document pairs the fetched-only stage held apart that are to be judged
    /// again on their rendered bodies (see `contested_pairs`).
    pub rejudge: Vec<(usize, usize)>,
}

impl Plan {
    /// Whether every document is placed, no pair left to judge.
    pub fn settled(&self) -> bool {
        self.needed.is_empty() && self.rejudge.is_empty()
    }
}

/// A cluster's id: from the URL of the page it keeps, so it does not depend on the
/// order of the inputs.
pub fn cluster_id(kept: &Member) -> String {
    format!("c{:016x}", fnv1a(kept.facts.url.as_bytes()))
}

/// Places every document it can with the judgements so far.
pub fn plan(members: &[Member], judged: &Judged) -> Plan {
    // The same bytes are the same document, unless scoring said they are a wall.
    let judgement = |i: usize, j: usize| -> Option<Judgement> {
        let scored = judged
            .get(&key(&members[i].html, &members[j].html))
            .copied();
        let identical = Judgement {
            decision: Decision::Duplicate,
            p_duplicate: 1.0,
            guarded: false,
            fetched_only: false,
            core_in_other: Some(1.0),
        };
        scored.or((members[i].html == members[j].html).then_some(identical))
    };
    let mut plan = Plan {
        placed: vec![None; members.len()],
        needed: Vec::new(),
        rejudge: Vec::new(),
    };
    for component in components(members, judged) {
        // A small component is judged whole in one round rather than a cluster at a time.
        let bodies = one_per_body(&component, members);
        let whole = bodies.len() <= MEMBERS_CHECKED_UP_TO;
        if whole {
            let unjudged = unjudged_pairs(&bodies, &judgement);
            if !unjudged.is_empty() {
                plan.needed.extend(unjudged);
                continue;
            }
            let contested = contested_pairs(&bodies, &judgement);
            if !contested.is_empty() {
                plan.rejudge.extend(contested);
                continue;
            }
        }
        let facts: Vec<Facts> = component
            .iter()
            .map(|&i| members[i].facts.clone())
            .collect();
        let mut left: Vec<usize> = keep::rank(&facts)
            .into_iter()
            .map(|r| component[r])
            .collect();
        let rank_of: HashMap<usize, usize> = left
            .iter()
            .enumerate()
            .map(|(rank, &m)| (m, rank))
            .collect();
        while !left.is_empty() {
            let center = if whole {
                most_joined(&left, members, &judgement)
            } else {
                left[0]
            };
            let others: Vec<usize> = left.iter().copied().filter(|&m| m != center).collect();
            let (joining, rest) = match gather(center, &others, members, &judgement, &rank_of) {
                Gathered::Needs(pairs) => {
                    plan.needed.extend(pairs);
                    break;
                }
                Gathered::Cluster { joining, rest } => (joining, rest),
            };
            let cluster: Vec<usize> = std::iter::once(center).chain(joining).collect();
            place(
                &mut plan.placed,
                &cluster,
                center,
                members,
                &judgement,
                &rank_of,
                &facts,
            );
            left = rest;
        }
    }
    plan
}

/// Places the members of one cluster gathered around `center`: the best to keep
/// (first in `rank_of`) is kept; each other member says how it was judged against
/// the center (the center, against the page kept).
fn place(
    placed: &mut [Option<Placed>],
    cluster: &[usize],
    center: usize,
    members: &[Member],
    judgement: &dyn Fn(usize, usize) -> Option<Judgement>,
    rank_of: &HashMap<usize, usize>,
    facts: &[Facts],
) {
    let mut ranked = cluster.to_vec();
    ranked.sort_by_key(|m| rank_of[m]);
    let (&kept, joined) = ranked.split_first().expect("the center");
    let id = cluster_id(&members[kept]);
    let runner_up = joined.first().map(|&m| &members[m].facts);
    placed[kept] = Some(Placed {
        cluster: id.clone(),
        keep: true,
        joined: if joined.is_empty() { "alone" } else { "kept" }.into(),
        why: keep::why(&members[kept].facts, runner_up, facts).into(),
    });
    for &m in joined {
        let other = if m == center { kept } else { center };
        let j = judgement(other, m).expect("judged above");
        placed[m] = Some(Placed {
            cluster: id.clone(),
            keep: false,
            joined: match j.decision {
                _ if members[m].html == members[other].html => "identical",
                Decision::Duplicate => "duplicate",
                _ => "unsure",
            }
            .into(),
            why: String::new(),
        });
    }
}

/// The member of `left` (in keep order) judged a sure duplicate of most others
/// (copies of one body counted each), the first in keep order of equals: a
/// cluster gathers around the page its copies agree on, not around the page best
/// to keep, which may be a copy of one of them only. Only for a component whose
/// pairs of bodies were all judged.
fn most_joined(
    left: &[usize],
    members: &[Member],
    judgement: &dyn Fn(usize, usize) -> Option<Judgement>,
) -> usize {
    let bodies = one_per_body(left, members);
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for &m in left {
        *copies.entry(members[m].html.as_str()).or_default() += 1;
    }
    let sure = |a: usize, b: usize| judgement(a, b).is_some_and(Judgement::sure);
    let joined = |b: usize| -> usize {
        let own = copies[members[b].html.as_str()];
        let own = if sure(b, b) { own - 1 } else { 0 };
        own + bodies
            .iter()
            .filter(|&&o| o != b && sure(b, o))
            .map(|&o| copies[members[o].html.as_str()])
            .sum::<usize>()
    };
    // max_by_key keeps the last of equals: reversed, the first in keep order.
    bodies
        .iter()
        .rev()
        .copied()
        .max_by_key(|&b| joined(b))
        .expect("a member left")
}

/// A component of up to this many distinct bodies is judged whole (each pair never
/// judged is scored, in one round), and a cluster's members are checked against
/// each other up to this many; a bigger cluster relies on its center alone (its
/// member pairs would be too many to score).
pub const MEMBERS_CHECKED_UP_TO: usize = 64;

/// What the judgements so far say of the cluster around a center.
enum Gathered {
    /// Pairs to judge first.
    Needs(Vec<(usize, usize)>),
    /// The members joining it and the rest, each in keep order.
    Cluster {
        joining: Vec<usize>,
        rest: Vec<usize>,
    },
}

/// The members of `others` (in keep order) that join the cluster of `center`: judged
/// its duplicates (sure, or unsure if no member left out holds them sure), and none
/// judged apart from another ([`Judgement::apart`]): of two at odds, the one
/// at odds with more members leaves. Two documents that are each a copy of a page
/// holding both (the two halves of an article, both copied whole elsewhere) so
/// stay apart.
fn gather(
    center: usize,
    others: &[usize],
    members: &[Member],
    judgement: &dyn Fn(usize, usize) -> Option<Judgement>,
    rank_of: &HashMap<usize, usize>,
) -> Gathered {
    let missing: Vec<_> = one_per_body(others, members)
        .into_iter()
        .map(|m| (center, m))
        .filter(|&(a, b)| judgement(a, b).is_none())
        .collect();
    if !missing.is_empty() {
        return Gathered::Needs(missing);
    }
    let (sure, unsure, mut rest) = split_by_judgement(others, |m| judgement(center, m));
    let sure_of = |a: usize, b: usize| judgement(a, b).is_some_and(Judgement::sure);
    let (claimed, unsure): (Vec<usize>, Vec<usize>) = unsure
        .into_iter()
        .partition(|&m| rest.iter().any(|&r| sure_of(m, r)));
    rest.extend(claimed);
    let mut joining: Vec<usize> = sure.into_iter().chain(unsure).collect();
    let bodies = one_per_body(&joining, members);
    if bodies.len() <= MEMBERS_CHECKED_UP_TO {
        let missing = unjudged_pairs(&bodies, judgement);
        if !missing.is_empty() {
            return Gathered::Needs(missing);
        }
        drop_members_at_odds(center, &mut joining, &mut rest, members, judgement, rank_of);
    }
    joining.sort_by_key(|m| rank_of[m]);
    rest.sort_by_key(|m| rank_of[m]);
    Gathered::Cluster { joining, rest }
}

/// Moves members of `joining` judged apart from others to `rest`: the member at odds
/// with most others leaves first; of equals, the one judged a sure duplicate of
/// fewer (the center among them), then the later in keep order; until the members
/// left all hold together. Only for clusters whose pairs of bodies were all judged.
/// Copies of one body are judged alike, so each body is weighed once with its
/// number of copies: 10,000 copies of one page took 20 s member by member.
fn drop_members_at_odds(
    center: usize,
    joining: &mut Vec<usize>,
    rest: &mut Vec<usize>,
    members: &[Member],
    judgement: &dyn Fn(usize, usize) -> Option<Judgement>,
    rank_of: &HashMap<usize, usize>,
) {
    let apart = |a: usize, b: usize| judgement(a, b).is_some_and(Judgement::apart);
    let sure = |a: usize, b: usize| judgement(a, b).is_some_and(Judgement::sure);
    let body_of = |m: usize| members[m].html.as_str();
    // Each body (its first member) with its copies in `joining`, the latest in keep order last.
    let mut bodies: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut group: HashMap<&str, usize> = HashMap::new();
    for &m in joining.iter() {
        let g = *group.entry(body_of(m)).or_insert_with(|| {
            bodies.push((m, Vec::new()));
            bodies.len() - 1
        });
        bodies[g].1.push(m);
    }
    for (_, copies) in &mut bodies {
        copies.sort_by_key(|m| rank_of[m]);
    }
    loop {
        // How many members the copies of `b` are `related` to (each copy is one of them).
        let related = |b: usize, related: &dyn Fn(usize, usize) -> bool| -> usize {
            let others = bodies.iter().filter(|&&(o, _)| related(b, o));
            others
                .map(|(o, copies)| copies.len() - usize::from(*o == b))
                .sum()
        };
        let worst = bodies
            .iter()
            .enumerate()
            .filter_map(|(g, (b, copies))| {
                let latest = *copies.last()?;
                let bonds = related(*b, &sure) + usize::from(sure(*b, center));
                Some((related(*b, &apart), Reverse(bonds), rank_of[&latest], g))
            })
            .max();
        match worst {
            Some((n, _, _, g)) if n > 0 => rest.extend(bodies[g].1.pop()),
            _ => break,
        }
    }
    *joining = bodies.into_iter().flat_map(|(_, copies)| copies).collect();
}

/// The first of `documents` with each body: copies of the same bytes are judged once.
fn one_per_body(documents: &[usize], members: &[Member]) -> Vec<usize> {
    let mut seen = HashSet::new();
    documents
        .iter()
        .copied()
        .filter(|&d| seen.insert(members[d].html.as_str()))
        .collect()
}

/// The pairs of `documents` never judged.
fn unjudged_pairs(
    documents: &[usize],
    judgement: &dyn Fn(usize, usize) -> Option<Judgement>,
) -> Vec<(usize, usize)> {
    pairs_where(documents, |a, b| judgement(a, b).is_none())
}

/// The pairs of `documents` (each once, in order) that `wanted` picks.
fn pairs_where(documents: &[usize], wanted: impl Fn(usize, usize) -> bool) -> Vec<(usize, usize)> {
    documents
        .iter()
        .enumerate()
        .flat_map(|(i, &a)| documents[i + 1..].iter().map(move |&b| (a, b)))
        .filter(|&(a, b)| wanted(a, b))
        .collect()
}

/// The pairs of `documents` that only the fetched-only stage holds apart while
/// both are sure duplicates of a third document: the fetched bodies of a
/// client-rendered page and of its server-rendered copy differ where their
/// rendered bodies agree, and one such call would turn a copy out of the cluster
/// its copies agree on. Judged again on their rendered bodies, they stay apart
/// only if the rendered bodies say so too.
fn contested_pairs(
    documents: &[usize],
    judgement: &dyn Fn(usize, usize) -> Option<Judgement>,
) -> Vec<(usize, usize)> {
    let sure = |a: usize, b: usize| judgement(a, b).is_some_and(Judgement::sure);
    let held_apart_unrendered =
        |a: usize, b: usize| judgement(a, b).is_some_and(|j| j.apart() && j.fetched_only);
    pairs_where(documents, |a, b| {
        held_apart_unrendered(a, b)
            && documents
                .iter()
                .any(|&k| k != a && k != b && sure(a, k) && sure(b, k))
    })
}

/// The members judged duplicate of the center, those joining it unsure, and the
/// rest, each in the order given.
fn split_by_judgement(
    others: &[usize],
    judgement: impl Fn(usize) -> Option<Judgement>,
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    let (mut sure, mut unsure, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for &m in others {
        match judgement(m) {
            Some(j) if j.sure() => sure.push(m),
            Some(j) if j.joins() => unsure.push(m),
            _ => rest.push(m),
        }
    }
    (sure, unsure, rest)
}

/// The documents joined by pairs that join, as union-find makes them: singletons too.
fn components(members: &[Member], judged: &Judged) -> Vec<Vec<usize>> {
    let mut by_html: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, m) in members.iter().enumerate() {
        by_html.entry(m.html.as_str()).or_default().push(i);
    }
    let mut sets = UnionFind::new(members.len());
    for (html, same) in &by_html {
        if judged.get(&key(html, html)).is_some_and(|j| !j.joins()) {
            continue;
        }
        for &i in &same[1..] {
            sets.union(same[0] as u32, i as u32);
        }
    }
    for ((a, b), j) in judged {
        if let (true, Some(a), Some(b)) =
            (j.joins(), by_html.get(a.as_str()), by_html.get(b.as_str()))
        {
            sets.union(a[0] as u32, b[0] as u32);
        }
    }
    let mut by_root: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for i in 0..members.len() {
        by_root.entry(sets.find(i as u32)).or_default().push(i);
    }
    by_root.into_values().collect()
}

/// Adds the judgements of a scored pair file (`html_a`, `html_b`, `decision`,
/// `p_duplicate`, `decided_by` and, when there, `core_in_other`, as `score` writes
/// them).
pub fn read_judged(path: &Path, judged: &mut Judged) -> Result<()> {
    let rows = RowReader::open(path)?;
    let needs = "is it the output of `twinpage score`?";
    let [html_a, html_b, decision, p, by] =
        ["html_a", "html_b", "decision", "p_duplicate", "decided_by"]
            .map(|c| rows.require(c, needs));
    let (html_a, html_b, decision, p, by) = (html_a?, html_b?, decision?, p?, by?);
    let core = rows.column("core_in_other");
    for row in rows {
        let row = row?;
        let field = |i: usize| row.fields.get(i).unwrap_or("").trim();
        let at = || format!("{}:{}", path.display(), row.line);
        let decision = match field(decision) {
            "duplicate" => Decision::Duplicate,
            "distinct" => Decision::Distinct,
            "review" => Decision::Review,
            other => bail!("{}: decision `{other}`", at()),
        };
        let Ok(p_duplicate) = field(p).parse::<f64>() else {
            bail!("{}: p_duplicate `{}` is not a number", at(), field(p));
        };
        let core_in_other = core
            .map(field)
            .filter(|c| !c.is_empty())
            .map(|c| {
                c.parse::<f64>()
                    .map_err(|_| anyhow!("{}: core_in_other `{c}` is not a number", at()))
            })
            .transpose()?;
        judged.insert(
            key(field(html_a), field(html_b)),
            Judgement {
                decision,
                p_duplicate,
                guarded: guarded(field(by)),
                fetched_only: field(by) == DECIDED_FETCHED,
                core_in_other,
            },
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, date: &str) -> Member {
        Member {
            html: format!("{name}.html"),
            source: String::new(),
            facts: Facts {
                url: format!("https://s.test/{name}"),
                date: date.into(),
                ..Facts::default()
            },
        }
    }

    /// Four documents a, b, c, d, captured in that order (so kept in that order).
    fn abcd() -> [Member; 4] {
        [("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")].map(|(name, date)| member(name, date))
    }

    fn placed(members: &[Member], judged: &Judged) -> Vec<Placed> {
        plan(members, judged)
            .placed
            .into_iter()
            .map(Option::unwrap)
            .collect()
    }

    fn says(judged: &mut Judged, a: &str, b: &str, decision: Decision, p: f64) {
        judged.insert(
            key(&format!("{a}.html"), &format!("{b}.html")),
            Judgement {
                decision,
                p_duplicate: p,
                guarded: false,
                fetched_only: false,
                core_in_other: None,
            },
        );
    }

    #[test]
    fn a_chain_is_cut_at_the_kept_page_and_the_missing_pair_is_asked_for() {
        // a ~ b ~ c, a kept (earliest); a and c never judged.
        let members = abcd();
        let mut judged = Judged::new();
        says(&mut judged, "a", "b", Decision::Duplicate, 0.9);
        says(&mut judged, "b", "c", Decision::Duplicate, 0.8);
        let first = plan(&members, &judged);
        assert_eq!(first.needed, [(0, 2)]);
        assert_eq!(first.placed[3].as_ref().unwrap().joined, "alone");
        // Judged apart: c leaves a's cluster, though it is b's duplicate.
        says(&mut judged, "a", "c", Decision::Distinct, 0.1);
        let second = plan(&members, &judged);
        assert!(second.needed.is_empty());
        let placed: Vec<Placed> = second.placed.into_iter().map(Option::unwrap).collect();
        assert_eq!(placed[0].cluster, placed[1].cluster);
        assert_ne!(placed[0].cluster, placed[2].cluster);
        assert!(placed[0].keep && placed[2].keep && !placed[1].keep);
        assert_eq!(
            (placed[0].why.as_str(), placed[1].joined.as_str()),
            ("earliest capture", "duplicate")
        );
    }

    #[test]
    fn a_pair_sent_to_review_for_its_walls_never_joins() {
        let members = [member("a", "1"), member("b", "2")];
        let mut judged = Judged::new();
        judged.insert(
            key("a.html", "b.html"),
            Judgement {
                decision: Decision::Review,
                p_duplicate: 0.9,
                guarded: true,
                fetched_only: false,
                core_in_other: None,
            },
        );
        let placed = plan(&members, &judged).placed;
        assert_ne!(
            placed[0].as_ref().unwrap().cluster,
            placed[1].as_ref().unwrap().cluster
        );
    }

    #[test]
    fn an_unsure_pair_joins_from_its_bar_and_says_so() {
        let members = [member("a", "1"), member("b", "2"), member("c", "3")];
        let mut judged = Judged::new();
        says(&mut judged, "a", "b", Decision::Review, 0.85);
        says(&mut judged, "a", "c", Decision::Review, 0.7);
        let placed = placed(&members, &judged);
        assert_eq!(
            (
                placed[1].joined.as_str(),
                placed[1].cluster == placed[0].cluster
            ),
            ("unsure", true)
        );
        assert_eq!(placed[2].joined, "alone");
    }

    #[test]
    fn a_sure_duplicate_outweighs_an_unsure_join() {
        // b is held unsure by a (kept first) but judged a sure duplicate of c.
        let members = [member("a", "1"), member("b", "2"), member("c", "3")];
        let mut judged = Judged::new();
        says(&mut judged, "a", "b", Decision::Review, 0.8);
        says(&mut judged, "a", "c", Decision::Distinct, 0.1);
        says(&mut judged, "b", "c", Decision::Duplicate, 0.95);
        let placed = placed(&members, &judged);
        assert_eq!(placed[0].joined, "alone");
        assert_eq!(placed[1].cluster, placed[2].cluster);
        assert_eq!(
            (placed[1].keep, placed[2].joined.as_str()),
            (true, "duplicate")
        );
    }

    #[test]
    fn two_halves_copied_whole_elsewhere_stay_apart() {
        // a holds b and c (pages 1 and 2 of one article), both judged its duplicates;
        // d, a copy of b, sides with b; b and c have never been judged.
        let members = abcd();
        let mut judged = Judged::new();
        says(&mut judged, "a", "b", Decision::Duplicate, 0.98);
        says(&mut judged, "a", "c", Decision::Duplicate, 0.98);
        says(&mut judged, "a", "d", Decision::Duplicate, 0.98);
        says(&mut judged, "b", "d", Decision::Duplicate, 0.99);
        let first = plan(&members, &judged);
        assert_eq!(first.needed, [(1, 2), (2, 3)]);
        says(&mut judged, "b", "c", Decision::Review, 0.1);
        says(&mut judged, "c", "d", Decision::Distinct, 0.05);
        let placed = placed(&members, &judged);
        let together = |i: usize, j: usize| placed[i].cluster == placed[j].cluster;
        assert!(together(0, 1) && together(0, 3) && !together(0, 2));
        assert_eq!(placed[2].joined, "alone");
    }

    #[test]
    fn of_two_bodies_at_odds_the_one_with_fewer_copies_leaves() {
        // a holds b and c, judged apart from each other; b is served at 2 URLs, c at 3.
        let copy = |body: &str, n: usize| Member {
            facts: Facts {
                url: format!("https://s.test/{body}/{n}"),
                date: format!("{n}"),
                ..Facts::default()
            },
            ..member(body, "")
        };
        let mut members = vec![member("a", "0")];
        members.extend((1..=2).map(|n| copy("b", n)));
        members.extend((1..=3).map(|n| copy("c", n)));
        let mut judged = Judged::new();
        says(&mut judged, "a", "b", Decision::Duplicate, 0.98);
        says(&mut judged, "a", "c", Decision::Duplicate, 0.98);
        says(&mut judged, "b", "c", Decision::Distinct, 0.05);
        let placed = placed(&members, &judged);
        let cluster = |i: usize| placed[i].cluster.as_str();
        // Each b is at odds with 3 members, each c with 2: the b copies leave, together.
        assert!((3..6).all(|i| cluster(i) == cluster(0)));
        assert!(cluster(1) == cluster(2) && cluster(1) != cluster(0));
        assert_eq!(placed[2].joined, "identical");
    }

    #[test]
    fn a_cluster_gathers_around_the_page_its_copies_agree_on() {
        // a (best to keep) copied b only; b, c and d are copies of one article.
        let members = abcd();
        let mut judged = Judged::new();
        says(&mut judged, "a", "b", Decision::Duplicate, 0.97);
        says(&mut judged, "a", "c", Decision::Distinct, 0.05);
        says(&mut judged, "a", "d", Decision::Distinct, 0.05);
        for (x, y) in [("b", "c"), ("b", "d"), ("c", "d")] {
            says(&mut judged, x, y, Decision::Duplicate, 0.99);
        }
        let placed = placed(&members, &judged);
        let together = |i: usize, j: usize| placed[i].cluster == placed[j].cluster;
        assert!(together(1, 2) && together(1, 3) && !together(0, 1));
        assert_eq!((placed[0].joined.as_str(), placed[1].keep), ("alone", true));
    }

    /// a, b, c, d, each pair but c and d judged sure duplicates.
    fn c_and_d_copies_of_a_and_b() -> ([Member; 4], Judged) {
        let mut judged = Judged::new();
        for (x, y) in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d")] {
            says(&mut judged, x, y, Decision::Duplicate, 0.99);
        }
        (abcd(), judged)
    }

    #[test]
    fn a_borderline_distinct_call_does_not_part_two_copies() {
        // c and d are called distinct at the model's threshold, yet both are sure
        // duplicates of a and b.
        let (members, mut judged) = c_and_d_copies_of_a_and_b();
        says(&mut judged, "c", "d", Decision::Distinct, 0.28);
        let borderline = placed(&members, &judged);
        assert!(borderline
            .iter()
            .all(|p| p.cluster == borderline[0].cluster));
        says(&mut judged, "c", "d", Decision::Distinct, 0.2);
        let apart = placed(&members, &judged);
        assert_ne!(apart[2].cluster, apart[3].cluster);
    }

    /// Sets how much of each other's core content the pair of `a` and `b` holds.
    fn holding(judged: &mut Judged, a: &str, b: &str, core_in_other: f64) {
        let pair = key(&format!("{a}.html"), &format!("{b}.html"));
        judged.get_mut(&pair).expect("judged").core_in_other = Some(core_in_other);
    }

    #[test]
    fn pages_holding_different_parts_of_one_article_stay_apart() {
        // c and d are sure duplicates of a and b (pages holding the whole article)
        // and judged unsure against each other, at a p where copies also score.
        let (members, mut judged) = c_and_d_copies_of_a_and_b();
        let together = |judged: &Judged| {
            let placed = placed(&members, judged);
            placed[2].cluster == placed[3].cluster
        };
        says(&mut judged, "c", "d", Decision::Review, 0.29);
        holding(&mut judged, "c", "d", 0.95);
        assert!(together(&judged), "copies: each holds the other's core");
        holding(&mut judged, "c", "d", 0.05);
        assert!(!together(&judged), "parts: neither holds the other's core");
        // Where the model leans to duplicate, its call stands.
        says(&mut judged, "c", "d", Decision::Review, 0.6);
        holding(&mut judged, "c", "d", 0.05);
        assert!(together(&judged));
    }

    #[test]
    fn copies_held_apart_by_their_fetched_bodies_alone_are_judged_again_on_render() {
        // a, b, c agree on render; the fetched-only stage held c and d apart (d, a
        // client-rendered copy whose fetched body is an app shell), while d is a
        // sure duplicate of a on render.
        let (members, mut judged) = c_and_d_copies_of_a_and_b();
        let fetched_only = Judgement {
            decision: Decision::Distinct,
            p_duplicate: 0.05,
            guarded: false,
            fetched_only: true,
            core_in_other: None,
        };
        judged.insert(key("c.html", "d.html"), fetched_only);
        let first = plan(&members, &judged);
        assert!(first.needed.is_empty());
        assert_eq!(first.rejudge, [(2, 3)]);
        assert!(
            first.placed.iter().all(Option::is_none),
            "nothing placed yet"
        );
        // Judged on render: copies, all four in one cluster.
        says(&mut judged, "c", "d", Decision::Duplicate, 0.97);
        let copies = placed(&members, &judged);
        assert!(copies.iter().all(|p| p.cluster == copies[0].cluster));
        // Judged apart on render too: they part, and nothing is asked again.
        says(&mut judged, "c", "d", Decision::Distinct, 0.05);
        let second = plan(&members, &judged);
        assert!(second.settled());
        let apart: Vec<Placed> = second.placed.into_iter().map(Option::unwrap).collect();
        assert_ne!(apart[2].cluster, apart[3].cluster);
    }
}
