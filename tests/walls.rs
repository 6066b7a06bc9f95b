//! Pages with nothing of their own (`tests/walls/`: consent, sign-in and bot walls,
//! "enable JavaScript" shells, "Loading…" placeholders, soft 404s, empty renders),
//! scored on Chromium: two different documents behind one wall are never decided
//! duplicates.

mod common;

use std::collections::BTreeMap;

use common::twinpage;

fn scored(render: &str) -> Vec<BTreeMap<String, String>> {
    let cache = tempfile::tempdir().unwrap();
    let out = twinpage()
        .args([
            "score",
            "--pairs",
            "tests/walls/pairs.csv",
            "--render",
            render,
            "--cache",
        ])
        .arg(cache.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn no_two_documents_are_duplicates_for_the_wall_they_share() {
    for render in ["auto", "always"] {
        let rows = scored(render);
        assert_eq!(rows.len(), 10);
        for row in &rows {
            let said = format!("--render {render}: {row:?}");
            if row["label"] == "0" {
                assert_ne!(row["decision"], "duplicate", "{said}");
            } else {
                assert_ne!(row["decision"], "distinct", "{said}");
            }
            if row["wall"] == "none" {
                assert!(!row["decided_by"].starts_with("wall:"), "{said}");
            }
        }
        // The case seen on a real crawl: a policy and the terms of one site, both
        // rendered as the same consent dialog, scored duplicate at p 0.85 before.
        // Their fetched bodies hold both texts, so the cascade's first stage may tell
        // them apart; rendered, only the wall shows, and the wall rule holds them.
        let policy_terms = rows
            .iter()
            .find(|r| r["html_b"] == "consent-terms.html")
            .unwrap();
        let routed = (
            policy_terms["decision"].as_str(),
            policy_terms["decided_by"].as_str(),
        );
        let expected: &[(&str, &str)] = match render {
            "auto" => &[("review", "wall:consent"), ("distinct", "fetched")],
            _ => &[("review", "wall:consent")],
        };
        assert!(expected.contains(&routed), "--render {render}: {routed:?}");
    }
}
