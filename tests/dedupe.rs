//! `twinpage dedupe` end to end, on crawls written by wget and warcio
//! (`tests/crawls/`): clusters, the page kept, and a run killed in any stage.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

use common::{in_order, twinpage};

const CRAWLS: [&str; 3] = [
    "tests/crawls/wget.warc.gz",
    "tests/crawls/warcio.warc.gz",
    "tests/crawls/warcio-revisit.warc.gz",
];

fn dedupe_args(out: &Path, cache: &Path) -> Vec<String> {
    let mut args: Vec<String> = vec!["dedupe".into()];
    args.extend(CRAWLS.iter().map(|c| c.to_string()));
    for (flag, value) in [("--out", out), ("--cache", cache)] {
        args.push(flag.into());
        args.push(value.display().to_string());
    }
    args
}

/// clusters.csv as rows of named fields.
fn clusters(dir: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(dir.join("clusters.csv")).unwrap();
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
fn a_crawl_becomes_clusters_of_copies_each_with_the_page_to_keep() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    twinpage()
        .args(dedupe_args(&out, &dir.path().join("cache")))
        .assert()
        .success();
    let rows = clusters(&out);
    assert_eq!(
        rows.len(),
        20,
        "every page of the three files, singletons too"
    );
    let cluster_of =
        |url: &str| -> &str { &rows.iter().find(|r| r["url"] == url).unwrap()["cluster"] };
    let article = cluster_of("http://twinpage.test/article.html");
    assert_eq!(
        article,
        cluster_of("http://twinpage.test/article-copy.html")
    );
    for other in ["other.html", "app.html", "chunked.html", "gzip.html"] {
        assert_ne!(
            article,
            cluster_of(&format!("http://twinpage.test/{other}")),
            "{other}"
        );
    }
    // One page kept per cluster; the sources name the record's file and offset.
    let mut kept: BTreeMap<&str, usize> = BTreeMap::new();
    for row in &rows {
        *kept.entry(&row["cluster"]).or_default() += usize::from(row["keep"] == "1");
        let (file, offset) = row["source"].rsplit_once('#').unwrap();
        assert!(
            CRAWLS.contains(&file) && offset.parse::<u64>().is_ok(),
            "{row:?}"
        );
    }
    assert!(kept.values().all(|&n| n == 1), "{kept:?}");
    // The article's earliest capture is kept: warcio's (2023) before wget's (today).
    let kept_article = rows
        .iter()
        .find(|r| r["cluster"] == article && r["keep"] == "1")
        .unwrap();
    assert_eq!(kept_article["url"], "http://twinpage.test/article.html");
    assert_eq!(kept_article["source"], "tests/crawls/warcio.warc.gz#886");
    assert_eq!(kept_article["why"], "earliest capture");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["documents"], 20);
    assert_eq!(summary["read"]["unreadable"].as_array().unwrap().len(), 1);
    // The scored candidates are there, as `score` writes them.
    let pairs = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert!(pairs
        .lines()
        .next()
        .unwrap()
        .ends_with("p_duplicate,p_spread,confidence,decision,decided_by,core_in_other"));

    // The run's page shows the clusters, the kept page first.
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("kept: earliest capture") && page.contains("warcio.warc.gz#886"));

    // Another command in the same folder is refused, naming what to do.
    let other = twinpage()
        .args(["dedupe", CRAWLS[0], "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other.stderr).contains("holds a run of another command"));
}

/// Starts `dedupe`, and kills it (SIGKILL) as soon as it says it began `stage`.
fn killed_in_stage(args: &[String], stage: usize) {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_twinpage"));
    let mut child = Process::new(binary)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("cache"),
        )
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let said = format!("stage {stage} of 4");
    for line in stderr.lines() {
        if line.unwrap().contains(&said) {
            child.kill().unwrap();
            break;
        }
    }
    child.wait().unwrap();
}

#[test]
fn a_run_killed_in_any_stage_ends_as_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let whole = dir.path().join("whole");
    twinpage()
        .args(dedupe_args(&whole, &cache))
        .assert()
        .success();
    let outputs = [
        "clusters.csv",
        "pairs.csv",
        "candidates.csv",
        "docs.csv",
        "summary.json",
    ];
    for stage in 1..=4 {
        let out = dir.path().join(format!("killed-{stage}"));
        let args = dedupe_args(&out, &cache);
        killed_in_stage(&args, stage);
        twinpage().args(&args).assert().success();
        for name in outputs {
            let read = |d: &Path| std::fs::read_to_string(d.join(name)).unwrap();
            // Paths inside name the run folder; the rest must be equal.
            let again = read(&out).replace(&out.display().to_string(), "RUN");
            assert_eq!(
                again,
                read(&whole).replace(&whole.display().to_string(), "RUN"),
                "{name} after a kill in stage {stage}"
            );
        }
        let leftovers: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

#[test]
fn pages_behind_one_wall_are_not_joined_and_the_unsure_pairs_are_queued() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let db = dir.path().join("review.db");
    let run = twinpage()
        .args(["dedupe", "tests/walls", "--out"])
        .arg(&out)
        .arg("--review-db")
        .arg(&db)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    let rows = clusters(&out);
    let cluster_of = |file: &str| -> &str {
        &rows.iter().find(|r| r["html"].ends_with(file)).unwrap()["cluster"]
    };
    // The policy and its copy are one document; the terms, behind the same consent
    // dialog, are not; nor are any two pages that show only a wall.
    assert_eq!(
        cluster_of("consent-policy.html"),
        cluster_of("consent-policy-copy.html")
    );
    assert_ne!(
        cluster_of("consent-policy.html"),
        cluster_of("consent-terms.html")
    );
    for group in ["login", "challenge", "nojs", "loading", "soft404", "empty"] {
        let (a, b) = (format!("{group}-a.html"), format!("{group}-b.html"));
        assert_ne!(cluster_of(&a), cluster_of(&b), "{group}");
    }
    let routed: usize = said
        .lines()
        .find_map(|l| {
            l.strip_prefix("twinpage: ")?
                .split(" pair(s) routed to review")
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("{said}"));
    assert!(routed >= 1 && db.is_file(), "{said}");
}

#[test]
fn an_input_that_is_no_crawl_is_refused_and_the_folder_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let (out, text) = (dir.path().join("run"), dir.path().join("notes.txt"));
    std::fs::write(&text, "hello").unwrap();
    let refused = twinpage()
        .arg("dedupe")
        .arg(&text)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("notes.txt is not a WARC file"), "{said}");
    // No stage finished there, so the corrected command may use the folder.
    twinpage()
        .args(["dedupe", CRAWLS[0], "--out"])
        .arg(&out)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .assert()
        .success();
    // A crawl with no page fails, saying so.
    let empty = dir.path().join("empty.warc");
    std::fs::write(&empty, "").unwrap();
    let none = twinpage()
        .arg("dedupe")
        .arg(&empty)
        .arg("--out")
        .arg(dir.path().join("none"))
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no page in the inputs"));
}

/// The article `tests/crawls/site/static/app.js` writes into its app shell, as a
/// plain page of another site.
fn static_copy_of_the_app_article() -> String {
    let script = std::fs::read_to_string("tests/crawls/site/static/app.js").unwrap();
    let quoted = |line: &str| {
        line.trim()
            .trim_end_matches(',')
            .trim_matches('"')
            .to_string()
    };
    let paragraphs: Vec<String> = script
        .lines()
        .filter(|l| l.trim_start().starts_with('"') && l.len() > 80)
        .map(|l| format!("<p>{}</p>", quoted(l)))
        .collect();
    assert_eq!(paragraphs.len(), 4);
    format!(
        "<!DOCTYPE html><html><head><title>Old rail bridge to close for six weeks of repairs - Valley Post</title></head>\
         <body><nav><a href=\"/\">Valley Post</a> | <a href=\"/news\">News</a></nav><article>\
         <h1>Old rail bridge to close for six weeks of repairs</h1>{}</article><footer>Valley Post 2024</footer></body></html>",
        paragraphs.join("")
    )
}

#[test]
fn a_page_built_by_its_archived_script_is_found_with_its_plain_copy() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("copies.jsonl");
    let line = serde_json::json!({"url": "https://valley-post.example/bridge", "html": static_copy_of_the_app_article()});
    std::fs::write(&jsonl, format!("{line}\n")).unwrap();
    let run = |out: &str, extra: &[&str]| -> Vec<BTreeMap<String, String>> {
        let out = dir.path().join(out);
        twinpage()
            .args(["dedupe", CRAWLS[0]])
            .arg(&jsonl)
            .arg("--out")
            .arg(&out)
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .args(extra)
            .assert()
            .success();
        clusters(&out)
    };
    let together = |rows: &[BTreeMap<String, String>]| {
        let cluster_of =
            |url: &str| rows.iter().find(|r| r["url"] == url).unwrap()["cluster"].clone();
        cluster_of("http://twinpage.test/app.html")
            == cluster_of("https://valley-post.example/bridge")
    };
    // Rendered, replayed from the WARC, the shell shows the article and is found.
    assert!(together(&run("rendered", &[])));
    // From fetched bodies alone the shell is an empty page: no pair, no cluster.
    let fetched_model = ["--no-render", "--model", "models/fetched-only.json"];
    assert!(!together(&run("fetched", &fetched_model)));
}

/// A page whose fetched text is a long list of teasers while its reader sees an
/// article (written by a script, or the teasers hidden by a style sheet).
fn teasers_over(article: &str, teasers: &str) -> (String, String) {
    let fetched = format!(
        "<!DOCTYPE html><html><head><title>Harbour News</title></head><body><ul>{}</ul>\
         <script src=\"/app.js\"></script></body></html>",
        teasers
            .split(". ")
            .map(|t| format!("<li>{t}</li>"))
            .collect::<String>()
    );
    let text = format!("Harbour News {article}");
    let rendered = serde_json::json!({
        "synthetic_body": format!("<html><body><article><h1>Harbour News</h1><p>{article}</p></article></body></html>"),
        "visible_text": text,
        "image_count": 0, "image_area": 0.0, "text_area": 0.2,
        "hidden_text_share": 0.0, "cut_off": false,
    });
    (fetched, rendered.to_string())
}

#[test]
fn pages_of_a_docs_csv_are_fingerprinted_as_their_stored_renders_show_them() {
    let article = "The harbour board voted on Tuesday to rebuild the north pier before winter, after \
        divers found the oak piles under the fish market rotted through in two places. Work starts \
        in September and the market moves to the car park for eleven weeks. Fishermen asked for \
        the slipway to stay open at night; the board agreed to light it and post a warden. The cost, \
        a little over two million, comes from the port reserve and a grant from the county.";
    let teasers = [
        "Lifeboat crew rescues two kayakers off the point. School choir wins the county cup for the \
         third year. Bakery on Quay Street closes after sixty years of trade. Council delays the vote \
         on parking charges until spring. Ferry timetable changes as the new boat arrives in March. \
         Anglers report the best mackerel season in a decade. Museum opens a room on the herring trade",
        "Storm damage closes the coast path near the lighthouse. Town band seeks a new conductor \
         after thirty years. Farmers market moves to Saturdays through the winter months. New \
         cycle lane planned along the old railway line. Library extends its opening hours on \
         Thursdays. Rugby club celebrates promotion with a parade. Planning board approves the \
         flats above the old cinema",
    ];
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, teasers) in ["a", "b"].iter().zip(teasers) {
        let (fetched, rendered) = teasers_over(article, teasers);
        std::fs::write(d.join(format!("{name}.html")), fetched).unwrap();
        std::fs::write(d.join(format!("{name}.render.json")), rendered).unwrap();
    }
    let candidates = |docs: &str, out: &str| -> String {
        std::fs::write(d.join("docs.csv"), docs).unwrap();
        let run = d.join(out);
        twinpage()
            .args(["dedupe", "--until", "candidates", "--out"])
            .arg(&run)
            .arg("--cache")
            .arg(d.join("cache"))
            .arg(d.join("docs.csv"))
            .assert()
            .success();
        std::fs::read_to_string(run.join("candidates.csv")).unwrap()
    };
    // Their fetched texts share nothing (two listings of one site, alike only in the
    // site's name): no candidate pair.
    let (a, b) = ("https://harbour.example/a", "https://harbour.example/b");
    let fetched = candidates(&format!("url,html\n{a},a.html\n{b},b.html\n"), "fetched");
    assert_eq!(fetched.lines().count(), 1, "{fetched}");
    // Their stored renders show one article: a candidate pair, with no browser run.
    let stored = candidates(
        &format!("url,html,rendered\n{a},a.html,a.render.json\n{b},b.html,b.render.json\n"),
        "stored",
    );
    let rows: Vec<&str> = stored.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{stored}");
    assert!(rows[0].starts_with(&format!("{a},{b},")), "{stored}");
}

/// One article at `n` URLs, each copy with its own line of the day's headlines: a
/// group of near-copies, as a tracking parameter or a calendar makes them.
fn near_copies(dir: &Path, n: usize) -> PathBuf {
    let article = "The harbour board voted on Tuesday to rebuild the north pier before winter, after \
        divers found the oak piles under the fish market rotted through in two places. Work starts \
        in September and the market moves to the car park for eleven weeks. Fishermen asked for \
        the slipway to stay open at night; the board agreed to light it and post a warden. The cost, \
        a little over two million, comes from the port reserve and a grant from the county. The \
        engineers expect the new piles, of concrete sleeved in steel, to last eighty years, twice \
        as long as the oak, and the deck will be raised half a metre against the spring tides that \
        flooded the market twice last year. Traders will pay no rent while they are in the car park.";
    let mut docs = String::from("url,html\n");
    for i in 0..n {
        let headlines = format!(
            "Today {i}: lifeboat drill number {} at the point, tide table page {}.",
            i * 7 % 101,
            i * 13 % 97
        );
        let page = format!(
            "<html><head><title>North pier to be rebuilt</title></head><body><nav>Home News Sport</nav>\
             <article><h1>North pier to be rebuilt</h1><p>{article}</p></article>\
             <aside><p>{headlines}</p></aside></body></html>"
        );
        std::fs::write(dir.join(format!("{i}.html")), page).unwrap();
        docs += &format!("http://harbour.test/pier?utm_source=feed{i},{i}.html\n");
    }
    std::fs::write(dir.join("docs.csv"), docs).unwrap();
    dir.join("docs.csv")
}

/// `dedupe DOCS --no-render` with the fetched-only model into DIR/run, which it returns.
fn dedupe_fetched_only(docs: &Path, dir: &Path) -> PathBuf {
    let out = dir.join("run");
    let run = twinpage()
        .args([
            "dedupe",
            "--no-render",
            "--model",
            "models/fetched-only.json",
        ])
        .arg(docs)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    out
}

#[test]
fn a_group_of_near_copies_is_one_cluster_without_scoring_every_pair_of_it() {
    let n = 120;
    let dir = tempfile::tempdir().unwrap();
    let docs = near_copies(dir.path(), n);
    let out = dedupe_fetched_only(&docs, dir.path());
    // Each document keeps its 32 nearest (NEAREST_BY_CORE): at most 32 n pairs
    // of the n (n - 1) / 2 its cores find.
    let found = std::fs::read_to_string(out.join("candidates.csv")).unwrap();
    let found = found.lines().count() - 1;
    assert!(found <= 32 * n && found < n * (n - 1) / 2, "{found}");
    // The members never paired with the center are judged against it, and join.
    let rows = clusters(&out);
    assert_eq!(rows.len(), n);
    assert!(
        rows.iter().all(|r| r["cluster"] == rows[0]["cluster"]),
        "{rows:?}"
    );
    assert_eq!(rows.iter().filter(|r| r["keep"] == "1").count(), 1);
}

/// A sign-in wall written to `dir/wall.html`, and docs.csv rows serving it at `n` URLs.
fn wall_at(dir: &Path, n: usize) -> Vec<String> {
    let wall = "<html><head><title>Sign in - Harbour Gazette</title></head><body><main>\
        <h1>Sign in to keep reading</h1><p>Subscribers read every article of the Harbour \
        Gazette, the archive since 1921 and the morning briefing. Sign in with the email \
        address you subscribed with, or start a trial month for one pound and cancel at any \
        time from your account page.</p><form><label>Email <input name=email></label>\
        <label>Password <input type=password name=password></label><button>Sign in</button>\
        </form></main></body></html>";
    std::fs::write(dir.join("wall.html"), wall).unwrap();
    (0..n)
        .map(|i| format!("https://gazette.test/news/{i},wall.html"))
        .collect()
}

#[test]
fn a_wall_served_at_many_urls_is_a_star_of_pairs_and_joins_no_page() {
    let n = 400;
    let dir = tempfile::tempdir().unwrap();
    let docs = format!("url,html\n{}\n", wall_at(dir.path(), n).join("\n"));
    std::fs::write(dir.path().join("docs.csv"), docs).unwrap();
    let out = dedupe_fetched_only(&dir.path().join("docs.csv"), dir.path());
    // Every page paired with the first alone, where every pair would be 79,800.
    let found = std::fs::read_to_string(out.join("candidates.csv")).unwrap();
    assert_eq!(found.lines().count() - 1, n - 1);
    // A wall says nothing of the article behind it: each page stays its own.
    let rows = clusters(&out);
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r["size"] == "1" && r["keep"] == "1"));
    let scored = std::fs::read_to_string(out.join("pairs.csv")).unwrap();
    assert!(scored
        .lines()
        .skip(1)
        .all(|l| l.contains(",review,wall:login,")));
}

/// The same crawl read in another order gives the same candidate pairs: a group of
/// near-copies, where many pairs are equally near at a page's 32nd nearest, and a wall
/// at 40 URLs, whose star is centred on its first URL, whichever row holds it.
#[test]
fn a_crawl_read_in_another_order_gives_the_same_candidate_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let docs = std::fs::read_to_string(near_copies(d, 120)).unwrap();
    let mut rows: Vec<String> = docs.lines().skip(1).map(String::from).collect();
    rows.extend(wall_at(d, 40));
    let pairs = |name: &str, rows: &[String]| {
        let docs = d.join(format!("{name}.csv"));
        std::fs::write(&docs, format!("url,html\n{}\n", rows.join("\n"))).unwrap();
        let run = d.join(name);
        twinpage()
            .args(["dedupe", "--no-render", "--until", "candidates", "--out"])
            .arg(&run)
            .arg(&docs)
            .assert()
            .success();
        let mut reader = csv::Reader::from_path(run.join("candidates.csv")).unwrap();
        let rows = reader.records().map(Result::unwrap);
        let by_url = rows.map(|r| in_order(r[0].into(), r[1].into()));
        by_url.collect::<std::collections::BTreeSet<_>>()
    };
    let read_in_order = pairs("in-order", &rows);
    rows.reverse();
    assert!(read_in_order.len() > 1_000, "{}", read_in_order.len());
    assert_eq!(pairs("reversed", &rows), read_in_order);
}
