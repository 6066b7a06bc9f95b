//! The review loop over real parts: an SQLite queue, the HTTP server, and a real
//! Chromium driving the page with the keyboard.

mod chromium;

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use headless_chrome::{Browser, Tab};
use serde_json::{json, Value};
use twinpage::signals::{names, Layout};
use twinpage_review::order::{Order, QueueOrder};
use twinpage_review::store::Serving;
use twinpage_review::{QueuedPair, ReviewServer, ReviewStore, StoredDocument, Verdict};

fn temp_db(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let db = dir.path().join("queue.db");
    (dir, db)
}

fn document(html: &str) -> StoredDocument {
    StoredDocument {
        hash: blake3::hash(html.as_bytes()).to_hex().to_string(),
        fetched: html.as_bytes().to_vec(),
        rendered: None,
        screenshot: None,
        core_text: html.to_string(),
    }
}

/// A queued pair of two small pages, scored `p`.
fn pair(i: usize, p: f64, body_a: &str) -> QueuedPair {
    let signal_names = names(Layout::Fetched);
    QueuedPair {
        url_a: format!("https://a.example/{i}"),
        url_b: format!("https://b.example/{i}"),
        a: document(body_a),
        b: document(&format!("<p>page {i} as copied elsewhere</p>")),
        query: None,
        source: format!("test.csv:{}", i + 2),
        columns: vec![("id".into(), format!("p{i}"))],
        signals: vec![0.0; signal_names.len()],
        signal_names,
        p_duplicate: p,
        model_id: "test-model".into(),
        // As databases written before the estimator seam hold it (`leaf`, `leaf_counts`).
        explanation: serde_json::from_value(json!({
            "steps": [{"signal": "fetched.core_simhash_hamming", "value": 3.0, "threshold": 5.0, "went_left": true}],
            "leaf": 1,
            "leaf_counts": {"fit_duplicates": 3, "fit_distinct": 2, "calibration_duplicates": 2, "calibration_distinct": 2},
            "p_duplicate": p,
            "thresholds": {"duplicate": 0.9, "distinct": 0.1},
        }))
        .unwrap(),
    }
}

/// The order these tests were written for: confidence nearest 0.5 first.
fn most_uncertain_first() -> QueueOrder {
    QueueOrder {
        order: Order::Uncertainty,
        seed: 0,
    }
}

fn queue_of(db: &Path, pairs: &[QueuedPair]) {
    ReviewStore::open(db).unwrap().enqueue(pairs).unwrap();
}

#[test]
fn scoring_the_same_pair_again_does_not_duplicate_it_and_keeps_its_label() {
    let (_dir, db) = temp_db("requeue");
    let mut store = ReviewStore::open(&db).unwrap();
    assert_eq!(
        store
            .enqueue(&[pair(0, 0.5, "<p>a</p>"), pair(1, 0.6, "<p>b</p>")])
            .unwrap(),
        2
    );
    store.judge(1, "ann", Verdict::Duplicate, "page").unwrap();
    let mut again = pair(0, 0.3, "<p>a</p>");
    // The same pair with its sides swapped is the same pair.
    std::mem::swap(&mut again.a, &mut again.b);
    std::mem::swap(&mut again.url_a, &mut again.url_b);
    assert_eq!(store.enqueue(&[again]).unwrap(), 0);
    assert_eq!(store.progress("ann").unwrap().pairs, 2);
    let first = store.pair(1).unwrap();
    assert_eq!(first.p_duplicate, 0.3, "the score is brought up to date");
    assert_eq!(first.labels, vec![("ann".to_string(), Verdict::Duplicate)]);
}

#[test]
fn most_uncertain_first_conflicts_and_majority() {
    let (_dir, db) = temp_db("order");
    let mut store = ReviewStore::open(&db).unwrap();
    store
        .enqueue(&[
            pair(0, 0.85, "<p>x</p>"),
            pair(1, 0.45, "<p>y</p>"),
            pair(2, 0.7, "<p>z</p>"),
        ])
        .unwrap();
    let ranked = store.ranked(most_uncertain_first()).unwrap();
    let pending: Vec<i64> = store
        .pending(&ranked)
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(pending, vec![2, 3, 1]);
    assert_eq!(
        store
            .next("ann", &Serving::once(&ranked))
            .unwrap()
            .unwrap()
            .id,
        2
    );
    // Bob does not get the pair Ann holds.
    assert_eq!(
        store
            .next("bob", &Serving::once(&ranked))
            .unwrap()
            .unwrap()
            .id,
        3
    );
    // Ann reloading the page finds the pair she holds again.
    assert_eq!(
        store
            .next("ann", &Serving::once(&ranked))
            .unwrap()
            .unwrap()
            .id,
        2
    );
    store.judge(2, "ann", Verdict::Duplicate, "page").unwrap();
    store.judge(2, "bob", Verdict::Distinct, "page").unwrap();
    assert_eq!(store.progress("ann").unwrap().conflicts, vec![2]);
    assert!(
        store.settled_labels().unwrap().is_empty(),
        "a tie is left out"
    );
    store.judge(2, "cy", Verdict::Distinct, "page").unwrap();
    store.judge(3, "cy", Verdict::Unsure, "page").unwrap();
    let settled = store.settled_labels().unwrap();
    assert_eq!(settled.len(), 1, "unsure is left out");
    assert_eq!((settled[0].pair_id, settled[0].duplicate), (2, false));
}

/// One reviewer working through the queue over HTTP; the pair ids they got.
fn review_all(base: &str, reviewer: &str) -> Vec<i64> {
    let mut got = Vec::new();
    loop {
        let next: Value = ureq::post(format!("{base}api/next"))
            .send_json(json!({ "reviewer": reviewer }))
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap();
        let Some(id) = next["pair"]["id"].as_i64() else {
            return got;
        };
        got.push(id);
        let verdict = if id % 2 == 0 { "duplicate" } else { "distinct" };
        ureq::post(format!("{base}api/verdict"))
            .send_json(json!({"pair_id": id, "reviewer": reviewer, "verdict": verdict}))
            .unwrap();
    }
}

/// A queue whose pairs differ in confidence, disagreement and signals: each order ranks it differently.
fn varied_queue(n: usize) -> Vec<QueuedPair> {
    (0..n)
        .map(|i| {
            let p = ((i * 37) % 100) as f64 / 100.0;
            let mut q = pair(i, p, &format!("<p>varied {i}</p>"));
            for (k, x) in q.signals.iter_mut().enumerate() {
                *x = ((i * (k + 3)) % 11) as f64 / 10.0;
            }
            let spread = ((i * 13) % 40) as f64 / 100.0;
            q.explanation.committee = Some(
                serde_json::from_value(json!({
                    "trees": 50, "duplicate_votes": 25, "mean": p, "spread": spread
                }))
                .unwrap(),
            );
            q
        })
        .collect()
}

#[test]
fn export_limit_gives_the_pairs_the_page_serves_in_the_same_order() {
    let (dir, db) = temp_db("export-order");
    queue_of(&db, &varied_queue(40));
    let orders = [
        ("balanced", Order::Balanced),
        ("committee", Order::Committee),
        ("uncertainty", Order::Uncertainty),
        ("random", Order::Random),
    ];
    let mut firsts = Vec::new();
    for (order, queue_order) in orders {
        let out = dir.path().join(format!("{order}.csv"));
        assert_cmd::Command::cargo_bin("twinpage")
            .unwrap()
            .args(["review", "export", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(&out)
            .args(["--limit", "12", "--order", order, "--seed", "5"])
            .assert()
            .success();
        let mut reader = csv::Reader::from_path(&out).unwrap();
        let headers = reader.headers().unwrap().clone();
        let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let (id_at, reason_at) = (column("pair_id"), column("reason"));
        let exported: Vec<(i64, String)> = reader
            .records()
            .map(|r| {
                let r = r.unwrap();
                (r[id_at].parse().unwrap(), r[reason_at].to_string())
            })
            .collect();
        assert_eq!(exported.len(), 12, "{order}: --limit");
        // A fresh copy of the queue, served by the page in the same order.
        let served_db = dir.path().join(format!("{order}.db"));
        std::fs::copy(&db, &served_db).unwrap();
        let queue_order = QueueOrder {
            order: queue_order,
            seed: 5,
        };
        let server = ReviewServer::start(served_db, 0, queue_order).unwrap();
        let mut served = Vec::new();
        for _ in 0..12 {
            let next: Value = ureq::post(format!("{}api/next", server.url()))
                .send_json(json!({ "reviewer": "ann" }))
                .unwrap()
                .body_mut()
                .read_json()
                .unwrap();
            let id = next["pair"]["id"].as_i64().unwrap();
            served.push((id, next["pair"]["reason"].as_str().unwrap().to_string()));
            ureq::post(format!("{}api/verdict", server.url()))
                .send_json(json!({"pair_id": id, "reviewer": "ann", "verdict": "distinct"}))
                .unwrap();
        }
        server.stop().unwrap();
        assert_eq!(
            served, exported,
            "{order}: the page serves what the export wrote"
        );
        firsts.push(exported);
    }
    assert_eq!(
        firsts[0][9].1, "random",
        "one balanced pair in ten is random"
    );
    let distinct: HashSet<Vec<i64>> = firsts
        .iter()
        .map(|f| f.iter().map(|(id, _)| *id).collect())
        .collect();
    assert_eq!(distinct.len(), 4, "each order its own queue: {firsts:?}");
}

#[test]
fn many_concurrent_reviewers_lose_and_double_no_label() {
    let (_dir, db) = temp_db("concurrent");
    let pairs: Vec<QueuedPair> = (0..120)
        .map(|i| pair(i, (i % 10) as f64 / 10.0, &format!("<p>doc {i}</p>")))
        .collect();
    queue_of(&db, &pairs);
    let server = ReviewServer::start(db.clone(), 0, QueueOrder::default()).unwrap();
    let base = Arc::new(server.url());
    let reviewers: Vec<_> = (0..8)
        .map(|r| {
            let base = base.clone();
            std::thread::spawn(move || (format!("r{r}"), review_all(&base, &format!("r{r}"))))
        })
        .collect();
    let results: Vec<(String, Vec<i64>)> =
        reviewers.into_iter().map(|t| t.join().unwrap()).collect();
    server.stop().unwrap();
    let mut handed_out = HashSet::new();
    for (reviewer, got) in &results {
        for id in got {
            assert!(
                handed_out.insert(*id),
                "pair {id} handed to {reviewer} and someone else"
            );
        }
    }
    assert_eq!(handed_out.len(), 120, "every pair was reviewed");
    assert!(
        results.iter().filter(|(_, got)| !got.is_empty()).count() > 1,
        "work was shared"
    );
    let history = ReviewStore::open(&db).unwrap().history().unwrap();
    assert_eq!(
        history.len(),
        120,
        "one label per pair, none lost, none doubled"
    );
    let labelled: BTreeSet<i64> = history.iter().map(|h| h.0).collect();
    assert_eq!(labelled.len(), 120);
    for (id, reviewer, verdict, undone) in &history {
        assert!(!undone);
        let owner = &results.iter().find(|(_, got)| got.contains(id)).unwrap().0;
        assert_eq!(reviewer, owner);
        let expected = if id % 2 == 0 {
            Verdict::Duplicate
        } else {
            Verdict::Distinct
        };
        assert_eq!(*verdict, expected);
    }
}

#[test]
fn the_api_refuses_forms_other_origins_and_other_hosts() {
    let (_dir, db) = temp_db("guard");
    queue_of(&db, &[pair(0, 0.5, "<p>a</p>")]);
    let server = ReviewServer::start(db.clone(), 0, most_uncertain_first()).unwrap();
    let url = format!("{}api/verdict", server.url());
    let body = r#"{"pair_id":1,"reviewer":"evil","verdict":"duplicate"}"#;
    let status = |request: ureq::RequestBuilder<ureq::typestate::WithBody>| match request
        .config()
        .http_status_as_error(false)
        .build()
        .send(body)
    {
        Ok(r) => r.status().as_u16(),
        Err(e) => panic!("{e}"),
    };
    // What a form can send (text/plain), a script elsewhere, a sandboxed frame, a rebinding host.
    assert_eq!(
        status(ureq::post(&url).header("Content-Type", "text/plain")),
        403
    );
    let json = || ureq::post(&url).header("Content-Type", "application/json");
    assert_eq!(status(json().header("Origin", "http://evil.example")), 403);
    assert_eq!(status(json().header("Origin", "null")), 403);
    assert_eq!(status(json().header("Sec-Fetch-Site", "cross-site")), 403);
    assert_eq!(status(json().header("Host", "evil.example")), 403);
    assert!(ReviewStore::open(&db)
        .unwrap()
        .history()
        .unwrap()
        .is_empty());
    // The same request from the page itself is taken: the refusals above are not an accident.
    assert_eq!(status(json().header("Sec-Fetch-Site", "same-origin")), 200);
    server.stop().unwrap();
}

/// Status and head of a request sent as raw bytes (headers ureq would not send twice).
fn raw_exchange(server: &ReviewServer, request: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let address = server.url();
    let authority = address.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .write_all(request.replace("{HOST}", authority).as_bytes())
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let code = answer
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, answer.to_ascii_lowercase())
}

#[test]
fn leases_are_posts_from_the_page_only_and_refusals_carry_the_headers() {
    let (_dir, db) = temp_db("lease");
    queue_of(&db, &[pair(0, 0.5, "<p>a</p>"), pair(1, 0.5, "<p>b</p>")]);
    let server = ReviewServer::start(db.clone(), 0, most_uncertain_first()).unwrap();
    let base = server.url();
    let lease = r#"{"reviewer":"mallory"}"#;
    let status = |request: ureq::RequestBuilder<ureq::typestate::WithBody>| {
        let answer = request
            .config()
            .http_status_as_error(false)
            .build()
            .send(lease)
            .unwrap();
        (answer.status().as_u16(), answer.headers().clone())
    };
    let get = |url: String, site: &str| {
        let answer = ureq::get(url)
            .header("Sec-Fetch-Site", site)
            .config()
            .http_status_as_error(false)
            .build()
            .call()
            .unwrap();
        answer.status().as_u16()
    };
    // What another site's page can make a browser send, 25 times over.
    for _ in 0..25 {
        assert_eq!(
            get(format!("{base}api/next?reviewer=mallory"), "cross-site"),
            403
        );
        assert_eq!(
            get(format!("{base}api/pair/1?reviewer=mallory"), "cross-site"),
            403
        );
        let post = ureq::post(format!("{base}api/next")).header("Content-Type", "application/json");
        let (code, headers) = status(post.header("Sec-Fetch-Site", "cross-site"));
        assert_eq!(code, 403);
        for name in [
            "x-content-type-options",
            "referrer-policy",
            "content-security-policy",
        ] {
            assert!(headers.contains_key(name), "a refusal lacks {name}");
        }
    }
    // A lease is a POST: a plain GET of it, even from the page, leases nothing.
    assert_eq!(
        get(format!("{base}api/next?reviewer=mallory"), "same-origin"),
        405
    );
    let (code, _) = raw_exchange(
        &server,
        "POST /api/next HTTP/1.1\r\nHost: {HOST}\r\nHost: evil.example\r\n\
         Content-Type: application/json\r\nContent-Length: 22\r\nConnection: close\r\n\r\n\
         {\"reviewer\":\"mallory\"}",
    );
    assert_eq!(code, 403, "a second Host is refused");
    // The reviewer still gets both pairs.
    let next = |who: &str| -> Value {
        ureq::post(format!("{base}api/next"))
            .send_json(json!({ "reviewer": who }))
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap()
    };
    let first = next("alice")["pair"]["id"]
        .as_i64()
        .expect("a pair for alice");
    let second = next("alice2")["pair"]["id"]
        .as_i64()
        .expect("another for alice2");
    assert_ne!(first, second);
    server.stop().unwrap();
}

#[test]
fn silent_connections_are_dropped_and_the_page_still_answers() {
    use std::io::Read;
    let (_dir, db) = temp_db("silent");
    queue_of(&db, &[pair(0, 0.5, "<p>a</p>")]);
    let server = ReviewServer::start(db.clone(), 0, most_uncertain_first()).unwrap();
    let address = server.url();
    let authority = address
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let started = std::time::Instant::now();
    let silent: Vec<std::net::TcpStream> = (0..300)
        .map(|_| std::net::TcpStream::connect(&authority).unwrap())
        .collect();
    // The page is served while they hang.
    let index = ureq::get(&address).call().unwrap().status().as_u16();
    assert_eq!(index, 200);
    for mut stream in silent {
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(20)))
            .unwrap();
        let mut byte = [0u8; 1];
        // The server closes the connection: end of stream, not a timeout.
        assert!(
            matches!(stream.read(&mut byte), Ok(0)),
            "a silent connection was kept"
        );
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "silent connections held {:?}",
        started.elapsed()
    );
    server.stop().unwrap();
}

/// Heads that announce a body which never comes are answered and closed within
/// seconds (each held its connection 80 s and more, a thousand at once), and the
/// page still answers meanwhile.
#[test]
fn bodies_that_never_come_do_not_hold_connections() {
    use std::io::{Read, Write};
    let (_dir, db) = temp_db("slow-body");
    queue_of(&db, &[pair(0, 0.5, "<p>a</p>")]);
    let server = ReviewServer::start(db.clone(), 0, most_uncertain_first()).unwrap();
    let address = server.url();
    let authority = address.trim_start_matches("http://").trim_end_matches('/');
    let started = std::time::Instant::now();
    let head = format!(
        "POST /api/verdict HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"pair\""
    );
    let waiting: Vec<std::net::TcpStream> = (0..200)
        .map(|_| {
            let mut stream = std::net::TcpStream::connect(authority).unwrap();
            stream.write_all(head.as_bytes()).unwrap();
            stream
        })
        .collect();
    let index = ureq::get(&address).call().unwrap().status().as_u16();
    assert_eq!(index, 200);
    for mut stream in waiting {
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("the server answers and closes, not the client's timeout");
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "waiting bodies held {:?}",
        started.elapsed()
    );
    assert!(ReviewStore::open(&db)
        .unwrap()
        .history()
        .unwrap()
        .is_empty());
    server.stop().unwrap();
}

/// Documents framed by the page: the URLs of the frames that loaded (sandboxed
/// frames run out of process, as targets of their own), and of those refused
/// (an error page in the page's frame tree).
fn framed_documents(tab: &Tab) -> (Vec<String>, Vec<String>) {
    use headless_chrome::protocol::cdp::{Page, Target};
    let targets = tab
        .call_method(Target::GetTargets { filter: None })
        .unwrap()
        .target_infos;
    let loaded = targets
        .into_iter()
        .filter(|t| t.Type == "iframe")
        .map(|t| t.url)
        .collect();
    let tree = tab
        .call_method(Page::GetFrameTree(None))
        .unwrap()
        .frame_tree;
    let refused = tree
        .child_frames
        .unwrap_or_default()
        .into_iter()
        .filter_map(|f| f.frame.unreachable_url)
        .collect();
    (loaded, refused)
}

fn shown_pair(tab: &Tab) -> String {
    tab.evaluate("document.getElementById('main').dataset.pairId", false)
        .unwrap()
        .value
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A tab on the review page, as reviewer alice, showing the first pair.
fn open_page_as_alice(browser: &Browser, server: &ReviewServer) -> Arc<Tab> {
    let tab = browser.new_tab().unwrap();
    tab.navigate_to(&format!("{}?reviewer=alice", server.url()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_for_pair(&tab, "1");
    tab
}

/// Waits until the page shows pair `id` ("" for none).
fn wait_for_pair(tab: &Tab, id: &str) {
    let start = Instant::now();
    while shown_pair(tab) != id {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "the page shows pair `{}`, not `{id}`",
            shown_pair(tab)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_reviewer_labels_with_the_keyboard_undoes_and_labels_again() {
    let (_dir, db) = temp_db("keyboard");
    queue_of(
        &db,
        &[
            pair(0, 0.5, "<p>first</p>"),
            pair(1, 0.4, "<p>second</p>"),
            pair(2, 0.8, "<p>third</p>"),
        ],
    );
    let server = ReviewServer::start(db.clone(), 0, most_uncertain_first()).unwrap();
    let browser = chromium::browser(None);
    let tab = open_page_as_alice(&browser, &server);
    let sandbox = tab
        .evaluate(
            "document.querySelector('#side-a iframe').getAttribute('sandbox')",
            false,
        )
        .unwrap();
    assert_eq!(
        sandbox.value,
        Some(json!("")),
        "documents are framed sandboxed"
    );
    std::thread::sleep(Duration::from_millis(500));
    let (loaded, refused) = framed_documents(&tab);
    assert!(refused.is_empty(), "frames refused: {refused:?}");
    let ours: Vec<&String> = loaded
        .iter()
        .filter(|url| url.starts_with(&server.url()))
        .collect();
    assert_eq!(ours.len(), 2, "{loaded:?}");
    assert!(ours
        .iter()
        .all(|url| url.contains("/doc/") && url.ends_with("/fetched")));
    let why = tab
        .evaluate("document.getElementById('leaf').textContent", false)
        .unwrap()
        .value
        .unwrap();
    assert!(
        why.as_str()
            .unwrap()
            .starts_with("leaf 1: training 3 duplicate / 2 distinct, calibration 2 duplicate"),
        "the stored explanation is shown: {why}"
    );
    let reason = tab
        .evaluate("document.getElementById('reason').textContent", false)
        .unwrap()
        .value
        .unwrap();
    assert_eq!(
        reason,
        json!("Served now because the model's confidence is near 0.5."),
        "the page says why the pair was chosen"
    );
    tab.press_key("d").unwrap();
    wait_for_pair(&tab, "2");
    tab.press_key("z").unwrap();
    wait_for_pair(&tab, "1");
    tab.press_key("n").unwrap();
    wait_for_pair(&tab, "2");
    tab.press_key("s").unwrap();
    wait_for_pair(&tab, "3");
    tab.press_key("u").unwrap();
    wait_for_pair(&tab, "");
    let progress = tab
        .evaluate("document.getElementById('progress').textContent", false)
        .unwrap()
        .value
        .unwrap();
    assert!(
        progress
            .as_str()
            .unwrap()
            .starts_with("reviewed 2 / left 1"),
        "{progress}"
    );
    server.stop().unwrap();
    let history = ReviewStore::open(&db).unwrap().history().unwrap();
    let a = "alice".to_string();
    assert_eq!(
        history,
        vec![
            (1, a.clone(), Verdict::Duplicate, true),
            (1, a.clone(), Verdict::Distinct, false),
            (2, a.clone(), Verdict::Skip, false),
            (3, a, Verdict::Unsure, false),
        ]
    );
}

const HOSTILE: &str = r#"<!doctype html><html><head><title>hostile</title></head><body>
<p>A page that tries to label itself.</p>
<script>
  document.title = "script ran";
  fetch("/api/verdict", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({pair_id: 1, reviewer: "evil", verdict: "duplicate"})});
  try { parent.document.title = "parent reached"; } catch (e) {}
</script>
<img src="x" onerror="fetch('/api/verdict',{method:'POST',headers:{'Content-Type':'application/json'},body:JSON.stringify({pair_id:1,reviewer:'evil-img',verdict:'duplicate'})})">
<form id="f" method="post" action="/api/verdict" enctype="text/plain">
  <input name='{"pair_id":1,"reviewer":"evil-form","verdict":"duplicate","x":"' value='"}'>
</form>
<script>document.getElementById("f").submit();</script>
</body></html>"#;

#[test]
fn a_script_in_a_reviewed_page_cannot_post_a_label() {
    let (_dir, db) = temp_db("hostile");
    let hostile = pair(0, 0.5, HOSTILE);
    let hash = hostile.a.hash.clone();
    queue_of(&db, &[hostile]);
    let server = ReviewServer::start(db.clone(), 0, most_uncertain_first()).unwrap();
    let browser = chromium::browser(None);
    let tab = open_page_as_alice(&browser, &server);
    // The frame is there and pointing at the hostile body.
    let src = tab
        .evaluate("document.querySelector('#side-a iframe').src", false)
        .unwrap()
        .value
        .unwrap();
    assert!(src
        .as_str()
        .unwrap()
        .ends_with(&format!("/doc/{hash}/fetched")));
    std::thread::sleep(Duration::from_secs(2));
    let title = tab.evaluate("document.title", false).unwrap().value;
    assert_eq!(
        title,
        Some(json!("twinpage review")),
        "the frame reached its parent"
    );
    // Opened on its own, outside any frame, the body still runs nothing.
    let direct = browser.new_tab().unwrap();
    direct
        .navigate_to(&format!("{}doc/{hash}/fetched", server.url()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    let title = direct.evaluate("document.title", false).unwrap().value;
    assert_eq!(title, Some(json!("hostile")), "the page's script ran");
    let origin = direct.evaluate("self.origin", false).unwrap().value;
    assert_eq!(origin, Some(json!("null")), "the body has an opaque origin");
    assert!(
        ReviewStore::open(&db)
            .unwrap()
            .history()
            .unwrap()
            .is_empty(),
        "a label was posted by the page"
    );
    // Control: the very request the page makes is taken from the page's own origin.
    tab.evaluate(
        r#"fetch("/api/verdict", {method: "POST", headers: {"Content-Type": "application/json"},
             body: JSON.stringify({pair_id: 1, reviewer: "control", verdict: "duplicate"})}).then(r => r.status)"#,
        true,
    )
    .unwrap();
    server.stop().unwrap();
    let history = ReviewStore::open(&db).unwrap().history().unwrap();
    let reviewers: Vec<&str> = history.iter().map(|h| h.1.as_str()).collect();
    assert_eq!(reviewers, vec!["control"]);
}

/// `review export` writes its queue and its documents folder together or not at
/// all: with the disk full midway (a file-size limit stands in for it) the earlier
/// export stays whole, and nothing half-written is left beside it. `--out -` is
/// refused (it wrote a file named `-` and a folder `-.docs/`).
#[test]
fn an_export_is_whole_or_leaves_the_earlier_one() {
    let (dir, db) = temp_db("export-whole");
    let big = format!("<p>{}</p>", "a long page ".repeat(20_000));
    let mut pairs: Vec<QueuedPair> = (0..6)
        .map(|i| pair(i, 0.5, &format!("<p>{i}</p>")))
        .collect();
    pairs.push(pair(6, 0.5, &big));
    queue_of(&db, &pairs[..3]);
    let out = dir.path().join("queue.csv");
    let export = |limit_bytes: Option<u64>| {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("twinpage"));
        command
            .args(["review", "export", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(&out);
        if let Some(bytes) = limit_bytes {
            disk_room(&mut command, bytes);
        }
        command.output().unwrap()
    };
    assert!(export(None).status.success());
    let listing = || {
        let mut names: Vec<(String, Vec<u8>)> = walk(dir.path())
            .into_iter()
            .filter(|p| !p.starts_with(&db) && !p.to_string_lossy().contains("queue.db"))
            .map(|p| {
                (
                    p.strip_prefix(dir.path()).unwrap().display().to_string(),
                    std::fs::read(&p).unwrap(),
                )
            })
            .collect();
        names.sort();
        names
    };
    let before = listing();
    assert_eq!(
        before.len(),
        1 + 6,
        "the queue and 6 documents: {:?}",
        before.iter().map(|b| &b.0).collect::<Vec<_>>()
    );
    // More pairs, one of whose pages is larger than the disk has room for.
    queue_of(&db, &pairs[3..]);
    let failed = export(Some(100_000));
    let said = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{said}");
    assert_eq!(listing(), before, "the earlier export changed: {said}");
    // With room, the new export replaces the old one whole.
    assert!(export(None).status.success());
    assert_eq!(listing().len(), 1 + 14);
    // `-` is not a file name here.
    let refused = assert_cmd::Command::cargo_bin("twinpage")
        .unwrap()
        .current_dir(dir.path())
        .args(["review", "export", "--db"])
        .arg(&db)
        .args(["--out", "-"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not stdout"));
    assert!(!dir.path().join("-").exists() && !dir.path().join("-.docs").exists());
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Lets `command` write no file beyond `bytes`: a disk that fills up, for one process.
fn disk_room(command: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: async-signal-safe calls only, between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            Ok(())
        });
    }
}

/// `score --review-db` writes its scores and its queue together or neither: with
/// the disk full while the queue was written, the scores were written whole and
/// the queue left empty (or, past its first 64 pairs, partly filled).
#[test]
fn scores_and_their_review_queue_are_written_together_or_not_at_all() {
    let (dir, db) = temp_db("score-whole");
    let d = dir.path();
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("training-data/web");
    let mut reader = csv::Reader::from_path(web.join("test.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let pairs = d.join("pairs.csv");
    let mut writer = csv::Writer::from_path(&pairs).unwrap();
    writer.write_record(&headers).unwrap();
    // Every pair of the split: the shipped fetched-only model leaves few of them to
    // review (44 of 803), and the queue must outgrow the room below.
    for row in reader.records() {
        let row = row.unwrap();
        let fields = row.iter().zip(&headers).map(|(v, h)| match h {
            "html_a" | "html_b" | "rendered_a" | "rendered_b" if !v.is_empty() => {
                web.join(v).display().to_string()
            }
            _ => v.to_string(),
        });
        writer.write_record(fields.collect::<Vec<_>>()).unwrap();
    }
    writer.flush().unwrap();
    let out = d.join("scored.csv");
    let score = |room: Option<u64>| {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("twinpage"));
        command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "score",
                "--no-render",
                "--model",
                "models/fetched-only.json",
                "--pairs",
            ])
            .arg(&pairs)
            .arg("--out")
            .arg(&out)
            .arg("--review-db")
            .arg(&db);
        if let Some(bytes) = room {
            disk_room(&mut command, bytes);
        }
        command.output().unwrap()
    };
    let queued = || {
        let export = d.join("queue.csv");
        assert_cmd::Command::cargo_bin("twinpage")
            .unwrap()
            .args(["review", "export", "--db"])
            .arg(&db)
            .arg("--out")
            .arg(&export)
            .assert()
            .success();
        std::fs::read_to_string(&export).unwrap().lines().count() - 1
    };
    // Room for the scores (412 KB) but not for the queue's pages (2.7 MB).
    let failed = score(Some(600_000));
    let said = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{said}");
    assert!(said.contains("review database"), "{said}");
    assert!(!out.exists(), "the scores were written without their queue");
    assert_eq!(queued(), 0);
    // With room, both.
    let done = score(None);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let routed = std::fs::read_to_string(&out)
        .unwrap()
        .matches(",review,")
        .count();
    assert!(routed > 10, "{routed} pairs routed to review");
    assert_eq!(queued(), routed);
}

/// A request to a team's server: its status and body, redirects not followed.
fn team_request(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, String, Option<String>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let response = match method {
        "GET" => {
            let mut r = agent.get(url);
            for (k, v) in headers {
                r = r.header(*k, *v);
            }
            r.call()
        }
        _ => {
            let mut r = agent.post(url);
            for (k, v) in headers {
                r = r.header(*k, *v);
            }
            r.send(body.unwrap_or(""))
        }
    };
    let mut response = response.unwrap();
    let cookie = response
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string());
    let status = response.status().as_u16();
    (
        status,
        response.body_mut().read_to_string().unwrap_or_default(),
        cookie,
    )
}

/// A team's server of `db` on a free loopback port.
fn team_server(db: &Path) -> ReviewServer {
    let address = "127.0.0.1:0".parse().unwrap();
    ReviewServer::start_team(
        db.to_path_buf(),
        address,
        most_uncertain_first(),
        Default::default(),
    )
    .unwrap()
}

#[test]
fn a_teams_page_lets_in_only_people_signed_in_and_names_them_itself() {
    let (_dir, db) = temp_db("team");
    queue_of(&db, &[pair(0, 0.5, "<p>a</p>"), pair(1, 0.4, "<p>b</p>")]);
    let server = team_server(&db);
    let base = server.url();
    let api = |path: &str| format!("{base}api/{path}");
    let json = ("Content-Type", "application/json");
    let verdict = r#"{"pair_id":1,"reviewer":"mallory","verdict":"duplicate"}"#;

    // No session: every API request is refused and changes nothing.
    assert_eq!(team_request("GET", &api("me"), &[], None).0, 401);
    assert_eq!(
        team_request("POST", &api("verdict"), &[json], Some(verdict)).0,
        401
    );
    assert_eq!(
        team_request("POST", &api("next"), &[json], Some("{}")).0,
        401
    );
    assert_eq!(
        team_request("GET", &format!("{base}doc/x/fetched"), &[], None).0,
        401
    );
    assert!(ReviewStore::open(&db)
        .unwrap()
        .history()
        .unwrap()
        .is_empty());

    // An invitation's link signs in once, with a cookie scripts cannot read.
    let token = ReviewStore::open(&db)
        .unwrap()
        .invite("alice", "reviewer")
        .unwrap();
    let link = format!("{base}signin?token={token}");
    let (status, _, cookie) = team_request("GET", &link, &[], None);
    assert_eq!(status, 303);
    let cookie = cookie.unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let session = cookie.split(';').next().unwrap().to_string();
    assert_eq!(team_request("GET", &link, &[], None).0, 403, "used once");
    let (status, me, _) = team_request("GET", &api("me"), &[("Cookie", &session)], None);
    assert_eq!(status, 200);
    let me: Value = serde_json::from_str(&me).unwrap();
    assert_eq!(
        (me["reviewer"].as_str(), me["role"].as_str()),
        (Some("alice"), Some("reviewer"))
    );
    let csrf = me["csrf"].as_str().unwrap().to_string();

    // A change needs the session's CSRF token, JSON and no foreign origin.
    let signed = [("Cookie", session.as_str()), json];
    assert_eq!(
        team_request("POST", &api("verdict"), &signed, Some(verdict)).0,
        403
    );
    let full = [
        ("Cookie", session.as_str()),
        json,
        ("X-CSRF-Token", csrf.as_str()),
    ];
    let form = [
        ("Cookie", session.as_str()),
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("X-CSRF-Token", csrf.as_str()),
    ];
    assert_eq!(
        team_request("POST", &api("verdict"), &form, Some("pair_id=1")).0,
        403
    );
    let foreign = [&full[..], &[("Origin", "http://evil.example")]].concat();
    assert_eq!(
        team_request("POST", &api("verdict"), &foreign, Some(verdict)).0,
        403
    );
    assert!(ReviewStore::open(&db)
        .unwrap()
        .history()
        .unwrap()
        .is_empty());
    // Signed in, the label is the session's person's, whatever the body says.
    assert_eq!(
        team_request("POST", &api("verdict"), &full, Some(verdict)).0,
        200
    );
    let history = ReviewStore::open(&db).unwrap().history().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].1, "alice");

    // Wrong tokens from one address meet 429 before the 40th.
    let refused: Vec<u16> = (0..40)
        .map(|i| team_request("GET", &format!("{base}signin?token=wrong{i}"), &[], None).0)
        .collect();
    assert_eq!(refused[0], 403);
    assert_eq!(refused[39], 429, "{refused:?}");

    // Revoked, the session lets nothing in.
    ReviewStore::open(&db).unwrap().revoke("alice").unwrap();
    assert_eq!(
        team_request("GET", &api("me"), &[("Cookie", &session)], None).0,
        401
    );
    server.stop().unwrap();
}

#[test]
fn a_reviewer_signs_in_with_a_link_in_chromium_and_labels_as_herself() {
    let (_dir, db) = temp_db("team-browser");
    queue_of(
        &db,
        &[pair(0, 0.5, "<p>first</p>"), pair(1, 0.4, "<p>second</p>")],
    );
    let server = team_server(&db);
    let token = ReviewStore::open(&db)
        .unwrap()
        .invite("bea", "adjudicator")
        .unwrap();
    let browser = chromium::browser(None);
    let tab = browser.new_tab().unwrap();
    // Without signing in, the page says how to.
    tab.navigate_to(&server.url())
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    let said = || {
        tab.evaluate("document.getElementById('status').textContent", false)
            .unwrap()
            .value
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let start = Instant::now();
    while !said().contains("sign in") {
        assert!(start.elapsed() < Duration::from_secs(15), "{}", said());
        std::thread::sleep(Duration::from_millis(50));
    }
    tab.navigate_to(&format!("{}signin?token={token}", server.url()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_for_pair(&tab, "1");
    tab.press_key("d").unwrap();
    wait_for_pair(&tab, "2");
    let history = ReviewStore::open(&db).unwrap().history().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!((history[0].0, history[0].1.as_str()), (1, "bea"));
    server.stop().unwrap();
}

/// A forest of ten trees on the queue's layout (signal 0 decides), its training
/// pairs, and frozen pairs both it and any successor get all right.
fn small_model() -> (
    twinpage::model::Model,
    twinpage::model::LabelledPairs,
    twinpage::model::LabelledPairs,
) {
    use twinpage::model::{train, DecisionPolicy, ForestParams, LabelledPairs, Model};
    let signals = names(Layout::Fetched);
    let labelled = |n: usize, salt: u8| {
        let mut set = LabelledPairs::default();
        for i in 0..n {
            let duplicate = i % 2 == 0;
            let noise = (i * 37 % 100) as f64 / 1000.0;
            let mut vector = vec![0.0; signals.len()];
            vector[0] = if duplicate { 0.8 } else { 0.1 } + noise;
            vector[1] = noise;
            let end = |side: u8| *blake3::hash(&[salt, side, i as u8, (i >> 8) as u8]).as_bytes();
            set.push(vector, duplicate, (end(0), end(1)));
        }
        set
    };
    let (original, frozen) = (labelled(300, 1), labelled(60, 2));
    let learner = ForestParams {
        trees: 10,
        ..ForestParams::default()
    }
    .check()
    .unwrap();
    let policy = DecisionPolicy::default();
    let trained = train::train(&original, None, &learner, &policy, 7).unwrap();
    let model = Model::new(signals, policy, 7, Default::default(), trained, None);
    (model, original, frozen)
}

/// The text of element `id` of the page in `tab`.
fn text_of(tab: &Tab, id: &str) -> String {
    tab.evaluate(
        &format!("document.getElementById('{id}').textContent"),
        false,
    )
    .unwrap()
    .value
    .and_then(|v| v.as_str().map(str::to_string))
    .unwrap_or_default()
}

/// Whether element `id` is hidden.
fn hidden(tab: &Tab, id: &str) -> bool {
    tab.evaluate(&format!("document.getElementById('{id}').hidden"), false)
        .unwrap()
        .value
        .and_then(|v| v.as_bool())
        .unwrap()
}

/// Waits until element `id` says `needle`.
fn wait_for_text(tab: &Tab, id: &str, needle: &str, within: Duration) {
    let start = Instant::now();
    while !text_of(tab, id).contains(needle) {
        assert!(
            start.elapsed() < within,
            "#{id} says `{}`, not `{needle}`",
            text_of(tab, id)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Labels the pairs the page serves with `verdicts` (d or n), checking that each
/// shows none of the other reviewers' labels, and that the page then has none left.
fn label_blind(tab: &Tab, verdicts: &[(&str, &str)]) {
    for (pair, key) in verdicts {
        wait_for_pair(tab, pair);
        assert_eq!(
            text_of(tab, "pair-labels"),
            "",
            "pair {pair}: blind to the others"
        );
        assert!(
            hidden(tab, "why") && !hidden(tab, "blind"),
            "no score before the verdict"
        );
        assert!(!text_of(tab, "pair-score").contains("p_duplicate"));
        tab.press_key(key).unwrap();
        wait_for_text(
            tab,
            "revealed-title",
            &format!("Pair #{pair}: you said"),
            Duration::from_secs(15),
        );
    }
    wait_for_pair(tab, "");
}

/// With nothing to judge it on, a new model is not made.
#[test]
fn retraining_refuses_an_empty_frozen_set() {
    use twinpage::model::LabelledPairs;
    use twinpage_review::retrain::{retrain, Frozen};
    let (model, original, _) = small_model();
    let none = LabelledPairs::default();
    let refused = retrain(&model, &original, &none, Frozen::Pairs(none.clone()), 7);
    let err = refused
        .err()
        .expect("no frozen pair, no new model")
        .to_string();
    assert!(err.contains("no pairs") && err.contains("--eval"), "{err}");
}

#[test]
fn two_reviewers_and_an_adjudicator_go_through_a_whole_round_in_chromium() {
    use twinpage_review::background::{Retrainer, Retraining};
    use twinpage_review::retrain::Frozen;
    use twinpage_review::server::{Options, Team};
    let (dir, db) = temp_db("round");
    let pairs: Vec<QueuedPair> = (0..6)
        .map(|i| pair(i, 0.5 - 0.05 * i as f64, &format!("<p>round {i}</p>")))
        .collect();
    queue_of(&db, &pairs);
    let (model, original, frozen) = small_model();
    let models = dir.path().join("models");
    let retrainer = Retrainer::new(Retraining {
        every: 13,
        parent: model,
        original,
        frozen: Frozen::Pairs(frozen),
        models: models.clone(),
    });
    let options = Options {
        order: most_uncertain_first(),
        blind: true,
        retraining: Some(retrainer),
    };
    let team = Team {
        trust_proxy: false,
        overlap: 1.0,
    };
    let server =
        ReviewServer::start_team(db.clone(), "127.0.0.1:0".parse().unwrap(), options, team)
            .unwrap();
    let browser = chromium::browser(None);
    // Each person in a browser context of their own: their own cookies.
    let sign_in = |name: &str, role: &str| {
        let token = ReviewStore::open(&db).unwrap().invite(name, role).unwrap();
        let context = browser.new_context().unwrap();
        let tab = context.new_tab().unwrap();
        tab.navigate_to(&format!("{}signin?token={token}", server.url()))
            .unwrap()
            .wait_until_navigated()
            .unwrap();
        tab
    };
    // Every pair takes a second look: ann and bob each see all six, blind to each
    // other and to the model until each verdict, which then shows what it said.
    let ann = sign_in("ann", "reviewer");
    label_blind(
        &ann,
        &[
            ("1", "d"),
            ("2", "d"),
            ("3", "d"),
            ("4", "d"),
            ("5", "n"),
            ("6", "d"),
        ],
    );
    assert!(
        text_of(&ann, "revealed-title").contains("you said duplicate; the model said p_duplicate")
    );
    let bob = sign_in("bob", "reviewer");
    label_blind(
        &bob,
        &[
            ("1", "n"),
            ("2", "d"),
            ("3", "d"),
            ("4", "d"),
            ("5", "n"),
            ("6", "d"),
        ],
    );
    wait_for_text(
        &bob,
        "retraining",
        "12 label(s) so far, 5 pair(s) settled",
        Duration::from_secs(5),
    );
    assert!(
        !text_of(&bob, "retraining").contains("last retrained"),
        "not before 13 labels"
    );
    {
        let store = ReviewStore::open(&db).unwrap();
        let progress = store.progress("").unwrap();
        assert_eq!(
            (progress.conflicts.clone(), progress.awaiting_adjudication),
            (vec![1], 1)
        );
        assert!(
            store
                .settled_labels()
                .unwrap()
                .iter()
                .all(|l| l.pair_id != 1),
            "a tie settles nothing"
        );
    }
    // The adjudicator is served the disagreement, sees both labels, and settles it.
    let cid = sign_in("cid", "adjudicator");
    wait_for_pair(&cid, "1");
    assert!(!hidden(&cid, "dispute"));
    assert_eq!(
        text_of(&cid, "pair-labels"),
        "labels so far: ann: duplicate, bob: distinct (conflict)"
    );
    cid.press_key("n").unwrap();
    wait_for_pair(&cid, "");
    let settled = ReviewStore::open(&db).unwrap().settled_labels().unwrap();
    let first = settled.iter().find(|l| l.pair_id == 1).unwrap();
    assert!(!first.duplicate && first.adjudicated);
    assert_eq!(settled.len(), 6);
    // The thirteenth label retrains the model in the background; the page follows
    // it, and the queue is scored again with the new model.
    wait_for_text(
        &cid,
        "retraining",
        "last retrained on 6 label(s) (1 adjudicated)",
        Duration::from_secs(120),
    );
    let said = text_of(&cid, "retraining");
    assert!(
        said.contains("it now orders the queue: ")
            && said.contains("of 6 queued pairs changed route"),
        "{said}"
    );
    let written: Vec<PathBuf> = walk(&models);
    assert_eq!(written.len(), 1, "{written:?}");
    let new_id = written[0]
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(said.contains(&new_id), "{said}");
    let store = ReviewStore::open(&db).unwrap();
    for id in 1..=6 {
        let pair = store.pair(id).unwrap();
        assert_eq!(pair.model_id, new_id);
        let parts = pair
            .explanation
            .contributions
            .expect("the new model takes its score apart");
        let sum: f64 = parts.signals.iter().map(|p| p.contribution).sum();
        assert!((parts.base + sum - parts.output).abs() < 1e-9);
    }
    // The pair the adjudicator judged shows why the new model scores it so.
    cid.evaluate("document.querySelector('#conflicts button').click()", false)
        .unwrap();
    wait_for_pair(&cid, "1");
    wait_for_text(
        &cid,
        "waterfall",
        "the forest's base",
        Duration::from_secs(5),
    );
    assert!(text_of(&cid, "waterfall").contains("calibrated: p_duplicate"));
    // The stats page: ann and bob agree on 5 of 6 pairs; kappa (5/6 - 22/36) / (1 - 22/36).
    cid.navigate_to(&format!("{}stats", server.url()))
        .unwrap()
        .wait_until_navigated()
        .unwrap();
    wait_for_text(&cid, "kappa", "ann / bob", Duration::from_secs(10));
    assert!(
        text_of(&cid, "kappa").contains("ann / bob60.571"),
        "{}",
        text_of(&cid, "kappa")
    );
    assert!(text_of(&cid, "disputes").contains("0 await an adjudicator"));
    server.stop().unwrap();
}

#[test]
fn a_share_of_pairs_takes_a_second_look_and_a_dispute_goes_to_the_adjudicator() {
    let (_dir, db) = temp_db("second-looks");
    let pairs: Vec<QueuedPair> = (0..1000)
        .map(|i| pair(i, 0.5, &format!("<p>look {i}</p>")))
        .collect();
    queue_of(&db, &pairs);
    let mut store = ReviewStore::open(&db).unwrap();
    let tenth = store.second_looks(0.1).unwrap();
    // Binomial(1000, 0.1): mean 100, standard deviation 9.5.
    assert!((70..=130).contains(&tenth.len()), "{}", tenth.len());
    assert_eq!(
        store.second_looks(0.1).unwrap(),
        tenth,
        "the same pairs every time"
    );
    assert!(store.second_looks(0.0).unwrap().is_empty());
    assert_eq!(store.second_looks(1.0).unwrap().len(), 1000);
    let ranked = store.ranked(most_uncertain_first()).unwrap();
    let looked_twice = *tenth.iter().min().unwrap();
    let once = (1..=1000).find(|id| !tenth.contains(id)).unwrap();
    // Both pairs first in an order of their own.
    let order: Vec<(i64, _)> = [looked_twice, once]
        .into_iter()
        .map(|id| (id, ranked[0].1))
        .collect();
    let serving = Serving {
        ranked: &order,
        second_looks: Some(&tenth),
        adjudicator: false,
    };
    let next = |store: &mut ReviewStore, who: &str, serving: &Serving| {
        store.next(who, serving).unwrap().map(|p| p.id)
    };
    assert_eq!(next(&mut store, "ann", &serving), Some(looked_twice));
    store
        .judge(looked_twice, "ann", Verdict::Duplicate, "page")
        .unwrap();
    assert_eq!(next(&mut store, "ann", &serving), Some(once));
    store
        .judge(once, "ann", Verdict::Duplicate, "page")
        .unwrap();
    assert_eq!(
        next(&mut store, "ann", &serving),
        None,
        "never twice to one reviewer"
    );
    assert_eq!(
        next(&mut store, "bob", &serving),
        Some(looked_twice),
        "its second look"
    );
    store
        .judge(looked_twice, "bob", Verdict::Distinct, "page")
        .unwrap();
    assert_eq!(
        next(&mut store, "bob", &serving),
        None,
        "one look was enough there"
    );
    assert_eq!(
        next(&mut store, "eve", &serving),
        None,
        "two looks are enough"
    );
    assert!(store.disputed(looked_twice, "cid").unwrap());
    let adjudicating = Serving {
        adjudicator: true,
        ..serving
    };
    assert_eq!(next(&mut store, "cid", &adjudicating), Some(looked_twice));
    assert!(store
        .settled_labels()
        .unwrap()
        .iter()
        .all(|l| l.pair_id != looked_twice));
    store
        .judge(looked_twice, "cid", Verdict::Distinct, "adjudication")
        .unwrap();
    assert!(
        !store.disputed(looked_twice, "dan").unwrap(),
        "settled for the others"
    );
    assert_eq!(next(&mut store, "cid", &adjudicating), None);
    let settled = store.settled_labels().unwrap();
    let judged = settled.iter().find(|l| l.pair_id == looked_twice).unwrap();
    assert!(!judged.duplicate && judged.adjudicated);
    // An undone adjudication leaves the dispute open again.
    store.undo("cid").unwrap();
    assert!(store.disputed(looked_twice, "dan").unwrap());
}
