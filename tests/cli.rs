//! The commands end to end, as a user runs them: real files in, real files out,
//! exit codes checked.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod common;
use common::{pair_file_head, papers, twinpage};

/// The output of a command that must succeed.
fn succeeded(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout_of(cmd: &mut Command) -> String {
    String::from_utf8(succeeded(cmd).stdout).unwrap()
}

/// What a command that succeeds says on stderr.
fn stderr_of(cmd: &mut Command) -> String {
    String::from_utf8(succeeded(cmd).stderr).unwrap()
}

fn stderr_of_failure(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected exit 1, stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}

const ARTICLE: &str =
    "The river rose through the night and by morning the old stone bridge was closed to \
    traffic. Engineers from the county inspected the arches and found water had scoured the \
    foundations of the second pier. The bridge, built in 1843, carries about 9000 vehicles a day. \
    Residents were told to use the ring road until repairs are finished, which the council expects \
    to take at least three weeks. Shops on the east bank said trade had already fallen by half.";

const OTHER: &str =
    "A new bakery opened on the high street on Saturday, selling sourdough loaves, \
    cinnamon buns and rye bread made with flour from a mill in the next valley. The owners, two \
    sisters who trained in Copenhagen, said they had waited four years for the right shop. Queues \
    formed before eight in the morning and the first batch sold out within an hour of opening.";

fn page(title: &str, nav: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head><body>\
         <nav><a href='/'>Home</a> <a href='/news'>News</a> {nav}</nav>\
         <article><h1>{title}</h1><p>{body}</p></article>\
         <footer>Copyright the site. All rights reserved.</footer></body></html>"
    )
}

/// A folder with a few pages and a pair file naming them.
fn fixture(extra_rows: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("a.html"),
        page("Bridge closed after flood", "Sport", ARTICLE),
    )
    .unwrap();
    fs::write(
        d.join("a-copy.html"),
        page("Bridge closed after flood", "Sport", ARTICLE),
    )
    .unwrap();
    fs::write(
        d.join("a-mirror.html"),
        page("Bridge closed | Mirror", "Weather Travel", ARTICLE),
    )
    .unwrap();
    fs::write(d.join("b.html"), page("New bakery opens", "Sport", OTHER)).unwrap();
    let csv = format!(
        "id,url_a,url_b,html_a,html_b,note\n\
         1,https://news.example.com/bridge,https://news.example.com/bridge?print=1,a.html,a-copy.html,copy\n\
         2,https://news.example.com/bridge,https://mirror.example.org/bridge,a.html,a-mirror.html,mirror\n\
         3,https://news.example.com/bridge,https://news.example.com/bakery,a.html,b.html,other\n{extra_rows}"
    );
    let pairs = d.join("pairs.csv");
    fs::write(&pairs, csv).unwrap();
    (dir, pairs)
}

/// `twinpage score --pairs PAIRS --out OUT`, plus any extra arguments.
fn score(pairs: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = twinpage();
    cmd.arg("score")
        .args(extra)
        .arg("--pairs")
        .arg(pairs)
        .arg("--out")
        .arg(out);
    cmd
}

/// `twinpage signals --pairs PAIRS --out OUT`, plus any extra arguments: the file it
/// wrote, read.
fn signals_of(pairs: &Path, out: &Path, extra: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    twinpage()
        .arg("signals")
        .args(extra)
        .arg("--pairs")
        .arg(pairs)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    read_csv(out)
}

/// The value of signal `name` in data row `row` of a signals file read by [`read_csv`].
fn signal(table: &(Vec<String>, Vec<Vec<String>>), row: usize, name: &str) -> f64 {
    let (headers, rows) = table;
    let column = headers.iter().position(|h| h == name).unwrap();
    rows[row][column].parse().unwrap()
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    (headers, rows)
}

#[test]
fn score_writes_input_columns_plus_decisions() {
    let (dir, pairs) = fixture("");
    let out = dir.path().join("scored.csv");
    score(&pairs, &out, &[]).assert().success();
    let (headers, rows) = read_csv(&out);
    assert_eq!(
        headers,
        [
            "id",
            "url_a",
            "url_b",
            "html_a",
            "html_b",
            "note",
            "p_duplicate",
            "p_spread",
            "confidence",
            "decision",
            "decided_by",
            "core_in_other"
        ]
    );
    assert_eq!(rows.len(), 3);
    // Passthrough columns unchanged.
    assert_eq!(rows[1][0], "2");
    assert_eq!(rows[1][5], "mirror");
    // Byte-identical bodies are decided by screening, and the output says so.
    assert_eq!(rows[0][9], "duplicate");
    assert_eq!(rows[0][10], "screen:identical-bodies");
    for row in &rows {
        let p: f64 = row[6].parse().unwrap();
        let spread: f64 = row[7].parse().unwrap();
        assert!((0.0..=1.0).contains(&p) && (0.0..=0.5).contains(&spread));
        assert!(["duplicate", "distinct", "review"].contains(&row[9].as_str()));
    }
    // The unrelated article is less likely a duplicate than the mirror.
    let p = |i: usize| rows[i][6].parse::<f64>().unwrap();
    assert!(p(2) < p(1), "unrelated {} vs mirror {}", p(2), p(1));
    // The mirror holds the article; the unrelated page holds little of it.
    let core_in_other = |i: usize| rows[i][11].parse::<f64>().unwrap();
    assert_eq!(core_in_other(0), 1.0);
    assert!(core_in_other(1) > 0.9, "mirror {}", core_in_other(1));
    assert!(core_in_other(2) < 0.2, "unrelated {}", core_in_other(2));
}

#[test]
fn score_to_stdout_and_signals_file() {
    let (dir, pairs) = fixture("");
    let text = stdout_of(
        twinpage()
            .args(["score", "--pairs"])
            .arg(&pairs)
            .args(["--out", "-"]),
    );
    assert_eq!(text.lines().count(), 4);
    let (headers, rows) = signals_of(&pairs, &dir.path().join("signals.csv"), &[]);
    let names = twinpage::signals::names(twinpage::signals::Layout::FetchedAndRendered);
    assert_eq!(headers.len(), 6 + names.len());
    assert_eq!(&headers[6..], &names[..]);
    let identical = headers
        .iter()
        .position(|h| h == "fetched.identical_bodies")
        .unwrap();
    assert_eq!(rows[0][identical], "1.000000");
    assert_eq!(rows[2][identical], "0.000000");
}

#[test]
fn malformed_row_names_file_line_and_column_and_writes_nothing() {
    let (dir, pairs) = fixture("4,u,v,a.html\n");
    let out = dir.path().join("scored.csv");
    let err = stderr_of_failure(&mut score(&pairs, &out, &[]));
    assert!(
        err.contains("pairs.csv:5") && err.contains("4 fields"),
        "{err}"
    );
    assert!(!out.exists());

    let bad_label = dir.path().join("labels.csv");
    fs::write(
        &bad_label,
        "url_a,url_b,html_a,html_b,label\nu,v,a.html,b.html,1\nu,v,a.html,b.html,maybe\n",
    )
    .unwrap();
    let err = stderr_of_failure(twinpage().args(["evaluate", "--pairs"]).arg(&bad_label));
    assert!(
        err.contains("labels.csv:3") && err.contains("`label`") && err.contains("maybe"),
        "{err}"
    );
}

#[test]
fn rows_are_named_by_the_files_own_line_with_lf_or_crlf() {
    for end in ["\n", "\r\n"] {
        // A blank line after the header: skipped, but it is still a line of the file.
        let (dir, pairs) = fixture("4,u,v,a.html\n");
        let text = fs::read_to_string(&pairs)
            .unwrap()
            .replacen('\n', "\n\n", 1);
        fs::write(&pairs, text.replace('\n', end)).unwrap();
        let out = dir.path().join("scored.csv");
        let fetched_only = ["--no-render", "--model", "models/fetched-only.json"];
        let err = stderr_of_failure(&mut score(&pairs, &out, &fetched_only));
        assert!(
            err.contains("pairs.csv:6: row has 4 fields"),
            "{end:?}: {err}"
        );

        let good = text.lines().take(5).collect::<Vec<_>>().join(end);
        fs::write(&pairs, good + end).unwrap();
        let explained = stdout_of(
            twinpage()
                .arg("explain")
                .args(fetched_only)
                .args(["--row", "2", "--pairs"])
                .arg(&pairs),
        );
        let first = explained.lines().next().unwrap();
        assert!(
            first.starts_with("row 2 (") && first.contains("pairs.csv:4)"),
            "{end:?}: {first}"
        );
    }
}

#[test]
fn missing_document_is_an_error_unless_skipped() {
    let (dir, pairs) = fixture("4,u,v,a.html,gone.html,x\n");
    let out = dir.path().join("scored.csv");
    let err = stderr_of_failure(&mut score(&pairs, &out, &[]));
    assert!(
        err.contains("gone.html") && err.contains("pairs.csv:5"),
        "{err}"
    );
    assert!(!out.exists());

    score(&pairs, &out, &["--skip-bad"]).assert().success();
    assert_eq!(read_csv(&out).1.len(), 3);
    let (_, skipped) = read_csv(&dir.path().join("scored.csv.skipped.csv"));
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0][0].ends_with("pairs.csv:5") && skipped[0][1].contains("gone.html"));
}

#[test]
fn hostile_bodies_never_crash_the_run() {
    let (dir, pairs) = fixture(
        "4,u,v,empty.html,a.html,x\n5,u,v,binary.html,a.html,x\n6,u,v,huge.html.gz,a.html,x\n7,u,v,latin1.html,a.html,x\n8,u,v,deep.html,a.html,x\n",
    );
    let d = dir.path();
    fs::write(d.join("empty.html"), "").unwrap();
    fs::write(
        d.join("binary.html"),
        (0..=255u8).cycle().take(100_000).collect::<Vec<u8>>(),
    )
    .unwrap();
    fs::write(
        d.join("latin1.html"),
        b"<p>caf\xe9 cr\xe8me br\xfbl\xe9e \xff\xfe</p>",
    )
    .unwrap();
    fs::write(d.join("deep.html"), "<div>".repeat(100_000) + "deep").unwrap();
    // 50 MB of text, stored gzip'd so the test folder stays small.
    {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(
            fs::File::create(d.join("huge.html.gz")).unwrap(),
            flate2::Compression::fast(),
        );
        let chunk = format!("<p>{ARTICLE}</p>\n");
        for _ in 0..(50_000_000 / chunk.len()) {
            gz.write_all(chunk.as_bytes()).unwrap();
        }
        gz.finish().unwrap();
    }
    let out = d.join("scored.csv");
    score(&pairs, &out, &[]).assert().success();
    let (_, rows) = read_csv(&out);
    assert_eq!(rows.len(), 8);
}

#[test]
fn train_evaluate_explain_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.json");
    let er = "training-data/er/valid.csv";
    let text = stdout_of(
        twinpage()
            .args(["train", "--seed", "3", "--pairs", er, "--out"])
            .arg(&model),
    );
    assert!(
        text.contains("F1") && text.contains("forest: 100 trees"),
        "{text}"
    );
    // Record pairs throughout: the model written learnt from every pair, its forest
    // calibrated out of bag.
    assert!(
        text.contains("fit: every pair, calibrated out of bag (100 % of the pairs are two records"),
        "{text}"
    );
    let file = |path: &Path| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
    };
    let fitted = |path: &Path| file(path)["training"]["fitted_on_every_pair"].clone();
    let calibration = |path: &Path| file(path)["estimator"]["params"]["calibration"].clone();
    assert_eq!(fitted(&model), true);
    assert_eq!(calibration(&model), "out-of-bag");
    let judged = dir.path().join("judged.json");
    twinpage()
        .args([
            "train",
            "--seed",
            "3",
            "--fit",
            "judged",
            "--calibration",
            "held-out",
            "--pairs",
            er,
            "--out",
        ])
        .arg(&judged)
        .assert()
        .success();
    assert_eq!(fitted(&judged), false);
    assert_eq!(
        calibration(&judged),
        "held-out",
        "a calibration asked for is kept"
    );
    let again = dir.path().join("m2.json");
    twinpage()
        .args(["train", "--seed", "3", "--pairs", er, "--out"])
        .arg(&again)
        .assert()
        .success();
    assert_eq!(
        fs::read(&model).unwrap(),
        fs::read(&again).unwrap(),
        "training is reproducible with --seed"
    );

    let json = stdout_of(
        twinpage()
            .args([
                "evaluate", "--json", "--by", "kind", "--pairs", er, "--model",
            ])
            .arg(&model),
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(report["overall"]["f1"].as_f64().unwrap() > 0.3);
    assert!(report["by"]["groups"]["wdc"]["pairs"].as_u64().unwrap() > 100);
    // What a plot needs: curves from nothing called duplicate to everything, ten
    // reliability bins that count every pair, the trade-off over 41 targets.
    let pairs = report["overall"]["pairs"].as_u64().unwrap();
    let points = report["curves"]["points"].as_array().unwrap();
    assert_eq!(points[0]["recall"].as_f64(), Some(0.0));
    assert_eq!(points.last().unwrap()["recall"].as_f64(), Some(1.0));
    assert!(report["curves"]["roc_auc"].as_f64().unwrap() > 0.5);
    let bins = report["reliability"].as_array().unwrap();
    assert_eq!(bins.len(), 10);
    let binned: u64 = bins.iter().map(|b| b["pairs"].as_u64().unwrap()).sum();
    assert_eq!(binned, pairs);
    assert_eq!(report["trade_off"].as_array().unwrap().len(), 41);
    assert!(report["overall"]["confusion"]["tp"].is_u64());
    assert!(report["thresholds"]["duplicate"].is_f64());
    assert!(!report["splits"].as_array().unwrap().is_empty());
    for mistake in report["mistakes"].as_array().unwrap() {
        assert!(mistake["row"].as_u64().unwrap() >= 1, "{mistake}");
    }

    // Leave one kind out: a model per kind, each trained without it.
    let json = stdout_of(
        twinpage()
            .args(["evaluate", "--json", "--leave-out", "kind", "--pairs", er])
            .args(["--train", er, "--model"])
            .arg(&model),
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let groups = report["groups"].as_array().unwrap();
    let total = report["pooled"]["pairs"].as_u64().unwrap();
    assert_eq!(groups.len(), 4, "{json}");
    for group in groups {
        let measured = group["metrics"]["pairs"].as_u64().unwrap();
        let trained = group["trained_on"].as_u64().unwrap();
        assert_eq!(trained + measured, total, "{group}: trained on the rest");
        assert!(group["metrics"]["calibration_error"].as_f64().unwrap() >= 0.0);
    }

    // The same for the cascade `score` runs by default: every pair is decided by
    // one stage or routed to review, and the stages' tallies add up.
    let fetched_only = dir.path().join("f.json");
    twinpage()
        .args([
            "train",
            "--seed",
            "3",
            "--no-render",
            "--pairs",
            er,
            "--out",
        ])
        .arg(&fetched_only)
        .assert()
        .success();
    let json = stdout_of(
        twinpage()
            .args(["evaluate", "--json", "--leave-out", "kind", "--cascade"])
            .args(["--pairs", er, "--train", er, "--model"])
            .arg(&model)
            .arg("--fetched-model")
            .arg(&fetched_only),
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let decided = |stages: &serde_json::Value| -> u64 {
        ["screen", "fetched", "rendered"]
            .iter()
            .flat_map(|s| ["right", "wrong"].map(|w| stages[s][w].as_u64().unwrap()))
            .sum()
    };
    let review = |m: &serde_json::Value| -> u64 {
        ["duplicate_as_review", "distinct_as_review"]
            .iter()
            .map(|c| m["confusion"][c].as_u64().unwrap())
            .sum()
    };
    let groups = report["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 4, "{json}");
    for group in groups {
        let m = &group["metrics"];
        let pairs = m["pairs"].as_u64().unwrap();
        assert_eq!(decided(&group["stages"]) + review(m), pairs, "{group}");
    }
    let pooled = &report["pooled"];
    assert_eq!(decided(&report["pooled_stages"]) + review(pooled), total);
    assert!(
        report["pooled_stages"]["fetched"]["right"]
            .as_u64()
            .unwrap()
            > 0,
        "{json}"
    );

    let (_fixture, pairs) = fixture("");
    let text = stdout_of(
        twinpage()
            .args(["explain", "--row", "2", "--pairs"])
            .arg(&pairs)
            .arg("--model")
            .arg(&model),
    );
    assert!(
        text.contains("p_duplicate") && text.contains("fetched."),
        "{text}"
    );
    assert!(
        text.contains("trees vote duplicate") && text.contains("bin"),
        "{text}"
    );
    // The waterfall ends at the forest's output, the trees' mean printed above it.
    let figure = |after: &str, before: &str| -> String {
        let start = text
            .find(after)
            .unwrap_or_else(|| panic!("{after}: {text}"))
            + after.len();
        let rest = &text[start..];
        rest[..rest.find(before).unwrap()].trim().to_string()
    };
    assert!(text.contains("why this score: the forest's base"), "{text}");
    assert_eq!(
        figure("their mean ", ","),
        figure("\n  = ", ", the forest's output"),
        "{text}"
    );
    // Byte-identical bodies are decided by the screen, as `score` decides them.
    let text = stdout_of(
        twinpage()
            .args(["explain", "--row", "1", "--pairs"])
            .arg(&pairs)
            .arg("--model")
            .arg(&model),
    );
    assert!(
        text.contains("decided duplicate by screen:identical-bodies"),
        "{text}"
    );
    // --texts shows what the signals read: each side's title and core, not its chrome.
    let text = stdout_of(
        twinpage()
            .args(["explain", "--texts", "--row", "3", "--pairs"])
            .arg(&pairs)
            .arg("--model")
            .arg(&model),
    );
    let side = |name: &str| -> &str {
        let start = text
            .find(&format!("fetched {name}: title"))
            .unwrap_or_else(|| panic!("{name}: {text}"));
        let rest = &text[start..];
        &rest[..rest[1..]
            .find("\n  fetched")
            .map_or(rest.len(), |end| end + 1)]
    };
    let (a, b) = (side("a"), side("b"));
    assert!(
        a.contains("\"Bridge closed after flood\"") && a.contains("| The river rose"),
        "{a}"
    );
    assert!(
        b.contains("\"New bakery opens\"") && b.contains("sourdough loaves"),
        "{b}"
    );
    assert!(
        !a.contains("| Home") && !a.contains("All rights reserved"),
        "{a}"
    );
}

#[test]
fn a_model_for_other_signals_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut model: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/default.json"))
            .unwrap(),
    )
    .unwrap();
    model["signals"][0] = "fetched.something_else".into();
    let path = dir.path().join("old.json");
    fs::write(&path, model.to_string()).unwrap();
    let (_fixture, pairs) = fixture("");
    let err = stderr_of_failure(
        twinpage()
            .args(["score", "--pairs"])
            .arg(&pairs)
            .arg("--model")
            .arg(&path),
    );
    assert!(
        err.contains("something_else") && err.contains("Retrain"),
        "{err}"
    );
}

#[test]
fn every_command_has_help() {
    for cmd in [
        "train", "score", "signals", "evaluate", "explain", "render", "report",
    ] {
        let text = stdout_of(twinpage().args([cmd, "--help"]));
        assert!(text.contains("--pairs"), "{cmd}: {text}");
    }
    twinpage().arg("no-such-command").assert().code(2);
    let list = stdout_of(twinpage().args(["signals", "--list"]));
    assert_eq!(
        list.lines().count(),
        twinpage::signals::names(twinpage::signals::Layout::FetchedAndRendered).len()
    );
}

/// A client-rendered copy of ARTICLE: the fetched body is an empty shell, the
/// article arrives when its script runs.
fn client_rendered(title: &str) -> String {
    let encoded: String = ARTICLE.chars().rev().collect();
    format!(
        "<!doctype html><html><head><meta charset=utf-8><title>{title}</title></head><body>\
         <nav><a href='/'>Home</a></nav><div id=app>Loading...</div>\
         <script>document.getElementById('app').innerHTML = '<article><h1>{title}</h1><p>' + \
         '{encoded}'.split('').reverse().join('') + '</p></article>';</script></body></html>"
    )
}

/// A live process (not a zombie).
struct Process {
    pid: String,
    group: String,
    cmdline: String,
}

fn processes() -> Vec<Process> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let path = entry.path();
        let stat = fs::read_to_string(path.join("stat")).unwrap_or_default();
        // After the parenthesised name: state, parent, process group.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
        if fields.len() < 3 || fields[0] == "Z" {
            continue;
        }
        let cmdline = fs::read(path.join("cmdline")).unwrap_or_default();
        found.push(Process {
            pid: entry.file_name().to_string_lossy().into_owned(),
            group: fields[2].to_string(),
            cmdline: String::from_utf8_lossy(&cmdline).replace('\0', " "),
        });
    }
    found
}

/// The processes that `keep` keeps, as "pid command line".
fn processes_where(keep: impl Fn(&Process) -> bool) -> Vec<String> {
    processes()
        .into_iter()
        .filter(|p| keep(p))
        .map(|p| format!("{} {}", p.pid, p.cmdline))
        .collect()
}

/// The process groups of the browsers whose command line mentions `marker`. Each
/// browser leads a group of its own that its zygotes and renderers join; only the
/// browser names its profile on its command line (the headless shell's children
/// name nothing).
fn browser_groups(marker: &str) -> BTreeSet<String> {
    processes()
        .into_iter()
        .filter(|p| p.cmdline.contains(marker))
        .map(|p| p.group)
        .collect()
}

/// Polls `check` every 50 ms until it holds or `limit` passes; whether it held.
fn within(limit: std::time::Duration, check: impl Fn() -> bool) -> bool {
    let started = std::time::Instant::now();
    while started.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    check()
}

#[test]
fn kill_9_of_a_rendering_run_leaves_no_chromium_and_no_profile() {
    let (dir, pairs) = fixture(
        "4,https://news.example.com/spin,https://news.example.com/bakery,spin.html,b.html,spin\n",
    );
    let d = dir.path();
    // A page whose script never stops burning CPU.
    fs::write(
        d.join("spin.html"),
        "<!doctype html><p>spinning</p><script>for (;;) {}</script>",
    )
    .unwrap();
    let tmp = d.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let marker = format!("{}/twinpage-chromium-", tmp.display());
    let run = |pairs: &Path| {
        let mut run = std::process::Command::new(assert_cmd::cargo::cargo_bin!("twinpage"));
        run.env("TMPDIR", &tmp)
            .env("XDG_CACHE_HOME", d.join("cache"))
            .args([
                "render",
                "--tabs",
                "2",
                "--render-deadline",
                "60",
                "--pairs",
            ])
            .arg(pairs)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        run
    };
    let mut twinpage = run(&pairs).spawn().unwrap();
    assert!(
        within(std::time::Duration::from_secs(30), || {
            let groups = browser_groups(&marker);
            processes_where(|p| groups.contains(&p.group)).len() > 2
        }),
        "Chromium started"
    );
    std::thread::sleep(std::time::Duration::from_secs(1));
    let groups = browser_groups(&marker);
    twinpage.kill().unwrap(); // SIGKILL: no handler runs
    twinpage.wait().unwrap();
    let survivors =
        || processes_where(|p| groups.contains(&p.group) || p.cmdline.contains(&marker));
    assert!(
        within(std::time::Duration::from_secs(10), || survivors()
            .is_empty()),
        "Chromium outlived a killed twinpage: {:?}",
        survivors()
    );
    let left = || {
        fs::read_dir(&tmp)
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("twinpage-chromium-")
            })
            .count()
    };
    assert_eq!(
        left(),
        1,
        "the killed run's profile folder stays until the next start"
    );
    // The next run sweeps it, and cleans up its own.
    let one = d.join("one.csv");
    fs::write(
        &one,
        "url_a,url_b,html_a,html_b\nhttps://x.example/a,https://x.example/b,a.html,b.html\n",
    )
    .unwrap();
    // Its stderr says why, should it fail (once in a loaded CI run, and never alone).
    let mut next = run(&one);
    next.stderr(std::process::Stdio::piped());
    succeeded(&mut Command::from_std(next));
    assert_eq!(left(), 0, "the stale profile folder was swept");
}

#[test]
fn stored_renders_travel_in_one_pack_and_score_as_files_do() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pairs.csv");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pack, packed) = (d.join("renders.tar.zst"), d.join("pairs.csv"));
    let store = || {
        let mut cmd = twinpage();
        // Every render is stored already: no browser may be needed.
        cmd.env("TWINPAGE_CHROMIUM", d.join("no-chromium-here"))
            .args(["render", "--cache"])
            .arg(d.join("empty-cache"))
            .arg("--pairs")
            .arg(&examples)
            .arg("--store")
            .arg(&pack)
            .arg("--out")
            .arg(&packed);
        stdout_of(&mut cmd)
    };
    let said = store();
    assert!(
        said.contains("0 rendered now, 0 already in the cache"),
        "{said}"
    );
    let (headers, rows) = read_csv(&packed);
    let rendered_a = headers.iter().position(|h| h == "rendered_a").unwrap();
    assert!(
        rows[0][rendered_a].starts_with("renders.tar.zst/")
            && rows[0][rendered_a].ends_with(".render.json"),
        "{:?}",
        rows[0]
    );
    // The same decisions as from the render files.
    let decisions = |pairs: &Path, out: &str| {
        let out = d.join(out);
        score(pairs, &out, &[]).assert().success();
        let (headers, rows) = read_csv(&out);
        let from = headers.iter().position(|h| h == "p_duplicate").unwrap();
        rows.iter().map(|r| r[from..].to_vec()).collect::<Vec<_>>()
    };
    assert_eq!(decisions(&packed, "a.csv"), decisions(&examples, "b.csv"));
    // The same renders again: the pack is not written again.
    let before = (
        fs::read(&pack).unwrap(),
        fs::metadata(&pack).unwrap().modified().unwrap(),
    );
    store();
    let after = (
        fs::read(&pack).unwrap(),
        fs::metadata(&pack).unwrap().modified().unwrap(),
    );
    assert_eq!(before, after);
    // A render the pack does not hold is named, with the pack (the fetched body
    // stands in, as for any render that cannot be had).
    let text = fs::read_to_string(&packed).unwrap();
    let entry = rows[0][rendered_a].trim_start_matches("renders.tar.zst/");
    fs::write(&packed, text.replace(entry, "0000.render.json")).unwrap();
    let run = score(&packed, &d.join("c.csv"), &["--render", "always"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(
        said.contains("renders.tar.zst holds no 0000.render.json"),
        "{said}"
    );
}

#[test]
fn render_ahead_then_score_without_a_browser() {
    let (dir, pairs) = fixture("");
    let d = dir.path();
    fs::write(
        d.join("app.html"),
        client_rendered("Bridge closed after flood"),
    )
    .unwrap();
    let mut rows = fs::read_to_string(&pairs).unwrap();
    rows.push_str(
        "4,https://news.example.com/bridge,https://app.example.com/#/bridge,a.html,app.html,app\n",
    );
    fs::write(&pairs, rows).unwrap();
    let cache = d.join("cache");
    let stored = d.join("renders");
    let with_renders = d.join("pairs-rendered.csv");
    // Browser profiles go under this test's own temporary folder, so that any
    // Chromium left behind would be found here.
    let tmp = d.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let text = stdout_of(
        twinpage()
            .env("TMPDIR", &tmp)
            .args(["render", "--tabs", "2", "--pairs"])
            .arg(&pairs)
            .arg("--cache")
            .arg(&cache)
            .arg("--store")
            .arg(&stored)
            .arg("--out")
            .arg(&with_renders),
    );
    assert!(text.contains("5 document(s): 5 rendered now"), "{text}");
    let tmp_name = tmp.display().to_string();
    let left = processes_where(|p| p.cmdline.contains(&tmp_name));
    assert!(left.is_empty(), "Chromium left behind: {left:?}");
    assert!(
        fs::read_dir(&tmp).unwrap().next().is_none(),
        "nothing left in TMPDIR"
    );

    let no_browser = |cmd: &mut Command| {
        cmd.env("TWINPAGE_CHROMIUM", d.join("no-chromium-here"));
    };
    // Rendering into the same store again reuses what it holds: no cache, no browser.
    let mut again = twinpage();
    no_browser(&mut again);
    let text = stdout_of(
        again
            .args(["render", "--pairs"])
            .arg(&pairs)
            .arg("--cache")
            .arg(d.join("empty-cache"))
            .arg("--store")
            .arg(&stored)
            .arg("--out")
            .arg(d.join("pairs-rendered-again.csv")),
    );
    assert!(
        text.contains("0 rendered now, 0 already in the cache, 5 stored before"),
        "{text}"
    );
    assert_eq!(
        fs::read(&with_renders).unwrap(),
        fs::read(d.join("pairs-rendered-again.csv")).unwrap()
    );
    // The cache is keyed by Chromium's version too, so a warm run still names the
    // browser; it just never starts it.
    let out = d.join("scored.csv");
    let listing = || -> Vec<PathBuf> {
        let mut names: Vec<PathBuf> = fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    let warm = score(&pairs, &out, &["--cache", cache.to_str().unwrap()])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&warm.stderr);
    assert!(
        warm.status.success() && !said.contains("rendered now"),
        "{said}"
    );
    assert_eq!(listing(), before, "no browser profile was made");
    // With stored renders no browser is needed at all, nor a cache.
    let signals = d.join("signals.csv");
    let mut from_stored = twinpage();
    no_browser(&mut from_stored);
    from_stored
        .args(["signals", "--cache"])
        .arg(d.join("empty-cache"))
        .arg("--pairs")
        .arg(&with_renders)
        .arg("--out")
        .arg(&signals)
        .assert()
        .success();
    let with_rendered = read_csv(&signals);
    let rendered = signal(&with_rendered, 3, "rendered.jaccard_shingles_text");
    // The shell's fetched-body tests read its rendered body too, when there is one.
    let shown = signal(&with_rendered, 3, "fetched.jaccard_shingles_text");
    assert!(
        rendered < 0.5 && shown < 0.5,
        "the script's article is in the rendered body: fetched {shown}, rendered {rendered}"
    );
    assert_eq!(signal(&with_rendered, 3, "rendered.cut_off"), 0.0);
    // Without rendered bodies the shell is what there is, nothing like the article.
    let fetched_only = signals_of(
        &with_renders,
        &d.join("signals-fetched.csv"),
        &["--no-render"],
    );
    let fetched = signal(&fetched_only, 3, "fetched.jaccard_shingles_text");
    assert!(fetched > 0.9, "the shell as fetched: {fetched}");

    // Nothing cached and no browser: the error says how to get one.
    let mut cold = score(&pairs, &out, &["--cache", d.join("cold").to_str().unwrap()]);
    no_browser(&mut cold);
    let err = stderr_of_failure(&mut cold);
    assert!(
        err.contains("apt-get install -y chromium") && err.contains("--no-render"),
        "{err}"
    );
}

/// A copy of the fixture's article stuffed with keywords a stylesheet hides: on the
/// fetched body the stuffing, four times the article's length, is most of the core,
/// and the browser shows none of it. With rendered bodies at hand, the fetched-body
/// tests read the stuffed side rendered, the copy it is; without, they read the
/// stuffing.
#[test]
fn stuffing_a_stylesheet_hides_is_read_as_the_browser_shows_it() {
    let (dir, pairs) = fixture("");
    let d = dir.path();
    let keywords: Vec<String> = (0..400).map(|i| format!("flood{i} cheap")).collect();
    let keywords = keywords.join(", ");
    let article = page("Bridge closed after flood", "Sport", ARTICLE);
    let stuffed = article.replace(
        "<footer>",
        &format!("<style>.kw{{font-size:0}}</style><div class=kw><p>{keywords}</p></div><footer>"),
    );
    fs::write(d.join("stuffed.html"), stuffed).unwrap();
    let mut rows = fs::read_to_string(&pairs).unwrap();
    rows.push_str(
        "4,https://news.example.com/bridge,https://news.example.com/bridge?kw=1,a.html,stuffed.html,stuffed\n",
    );
    fs::write(&pairs, rows).unwrap();
    let distance = |extra: &[&str]| -> f64 {
        let out = d.join(format!("signals{}.csv", extra.len()));
        signal(
            &signals_of(&pairs, &out, extra),
            3,
            "fetched.levenshtein_core",
        )
    };
    let as_fetched = distance(&["--no-render"]);
    assert!(
        as_fetched > 0.5,
        "the stuffing is in the fetched core: {as_fetched}"
    );
    let cache = d.join("cache");
    let as_shown = distance(&["--cache", cache.to_str().unwrap()]);
    assert!(as_shown < 0.1, "read as the browser shows it: {as_shown}");
}

#[test]
fn a_model_refuses_the_other_layout() {
    let (dir, pairs) = fixture("");
    let out = dir.path().join("out.csv");
    let err = stderr_of_failure(&mut score(
        &pairs,
        &out,
        &["--no-render", "--model", "models/default.json"],
    ));
    assert!(
        err.contains("rendered-body signals") && err.contains("fetched-only.json"),
        "{err}"
    );
    // --no-render without a model takes the fetched-only one.
    score(&pairs, &out, &["--no-render"]).assert().success();
    // A fetched-only model never renders, --no-render or not: no browser is needed.
    score(&pairs, &out, &["--model", "models/fetched-only.json"])
        .env("TWINPAGE_CHROMIUM", dir.path().join("no-chromium-here"))
        .assert()
        .success();
    score(
        &pairs,
        &out,
        &["--no-render", "--model", "models/fetched-only.json"],
    )
    .assert()
    .success();
    assert!(!out.with_extension("csv.skipped.csv").exists());
}

#[test]
fn a_damaged_or_empty_review_database_is_named_and_nothing_is_written() {
    let (dir, pairs) = fixture("");
    let d = dir.path();
    let out = d.join("scored.csv");
    fs::write(
        d.join("damaged.db"),
        b"SQLite format 3\0 but then nothing a database holds, repeated ".repeat(200),
    )
    .unwrap();
    fs::write(d.join("empty.db"), b"").unwrap();
    let damaged = d.join("damaged.db").display().to_string();
    let err = stderr_of_failure(&mut score(
        &pairs,
        &out,
        &[
            "--no-render",
            "--model",
            "models/fetched-only.json",
            "--review-db",
            &damaged,
        ],
    ));
    assert!(err.contains("damaged.db"), "{err}");
    assert!(
        !out.exists(),
        "--out was written before the database failed"
    );
    for db in ["damaged.db", "empty.db"] {
        let err = stderr_of_failure(
            twinpage()
                .args(["review", "export", "--out"])
                .arg(d.join("queue.csv"))
                .arg("--db")
                .arg(d.join(db)),
        );
        assert!(err.contains(db), "{err}");
    }
}

#[test]
fn queue_export_import_and_retrain() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    stdout_of(twinpage().args([
        "train",
        "--no-render",
        "--pairs",
        "training-data/er/valid.csv",
        "--out",
        &path("parent.json"),
        "--precision-target",
        "0.95",
        "--every-pair",
    ]));
    pair_file_head(
        "training-data/er/train.csv",
        400,
        &dir.path().join("new.csv"),
    );
    let score_into_queue = || {
        twinpage()
            .args([
                "score",
                "--no-render",
                "--model",
                &path("parent.json"),
                "--pairs",
                &path("new.csv"),
                "--out",
                &path("scored.csv"),
                "--review-db",
                &path("queue.db"),
            ])
            .output()
            .unwrap()
    };
    let out = score_into_queue();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let routed = fs::read_to_string(path("scored.csv"))
        .unwrap()
        .matches(",review,")
        .count();
    assert!(routed > 20, "only {routed} pairs routed to review");
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!(
        "{routed} pair(s) routed to review, {routed} of them new"
    )));
    // Scoring again queues nothing new.
    let again = score_into_queue();
    assert!(String::from_utf8_lossy(&again.stderr).contains(", 0 of them new"));

    // Export: a pair file of the pending pairs that needs none of the original files.
    stdout_of(twinpage().args([
        "review",
        "export",
        "--db",
        &path("queue.db"),
        "--out",
        &path("queue.csv"),
    ]));
    let mut exported = csv::Reader::from_path(path("queue.csv")).unwrap();
    let headers = exported.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = exported.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), routed);
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rescored = stdout_of(twinpage().args([
        "score",
        "--no-render",
        "--model",
        &path("parent.json"),
        "--pairs",
        &path("queue.csv"),
    ]));
    assert_eq!(
        rescored.matches(",review,").count(),
        routed,
        "the export scores as the originals did"
    );

    // Labels from elsewhere: the known labels of the exported pairs. Each pair
    // names the line of the (CRLF) file it came from: data row i is line i + 2.
    let truth: std::collections::HashMap<(String, String), (String, usize)> = {
        let mut r = csv::Reader::from_path(path("new.csv")).unwrap();
        let label = r.headers().unwrap().iter().position(|h| h == "label");
        let label = label.unwrap();
        r.records()
            .enumerate()
            .map(|(i, rec)| {
                let rec = rec.unwrap();
                let key = (rec[0].to_string(), rec[1].to_string());
                (key, (rec[label].to_string(), i + 2))
            })
            .collect()
    };
    let mut labels = String::from("pair_id,label,reviewer\n");
    for row in &rows {
        let (label, line) = &truth[&(row[col("url_a")].to_string(), row[col("url_b")].to_string())];
        assert_eq!(row[col("source")], format!("{}:{line}", path("new.csv")));
        labels.push_str(&format!("{},{label},oracle\n", &row[col("pair_id")]));
    }
    fs::write(
        path("bad.csv"),
        format!("{labels}{},maybe,oracle\n", &rows[0][col("pair_id")]),
    )
    .unwrap();
    let err = stderr_of_failure(twinpage().args([
        "review",
        "import",
        "--db",
        &path("queue.db"),
        "--labels",
        &path("bad.csv"),
    ]));
    assert!(
        err.contains(&format!("bad.csv:{}", rows.len() + 2)) && err.contains("maybe"),
        "{err}"
    );
    // One reviewer saying two things of one pair: refused, both lines named.
    let first = &rows[0][col("pair_id")];
    let (label, _) = &truth[&(
        rows[0][col("url_a")].to_string(),
        rows[0][col("url_b")].to_string(),
    )];
    let flipped = if label == "1" { "0" } else { "1" };
    fs::write(
        path("conflict.csv"),
        format!("{labels}{first},{flipped},oracle\n"),
    )
    .unwrap();
    let err = stderr_of_failure(twinpage().args([
        "review",
        "import",
        "--db",
        &path("queue.db"),
        "--labels",
        &path("conflict.csv"),
    ]));
    assert!(
        err.contains(&format!("conflict.csv:{}", rows.len() + 2)) && err.contains("at line 2"),
        "{err}"
    );
    fs::write(path("labels.csv"), &labels).unwrap();
    let imported = stdout_of(twinpage().args([
        "review",
        "import",
        "--db",
        &path("queue.db"),
        "--labels",
        &path("labels.csv"),
    ]));
    assert!(
        imported.contains(&format!("recorded {routed} label(s)")),
        "{imported}"
    );

    // Retrain on the parent's own data plus the labels; reproducible by seed.
    // `retrain` of the parent with the queue's labels, on `pairs`, into `out`.
    let retrain = |pairs: &str, out: &str| {
        let mut cmd = twinpage();
        cmd.args([
            "retrain",
            "--no-render",
            "--model",
            &path("parent.json"),
            "--db",
            &path("queue.db"),
            "--pairs",
            pairs,
            "--out",
            &path(out),
        ]);
        cmd
    };
    let seeded = |out: &str| {
        let mut cmd = retrain("training-data/er/valid.csv", out);
        cmd.args(["--seed", "3"]);
        cmd
    };
    let report = stdout_of(&mut seeded("new1.json"));
    assert!(report.contains("F1 (each at its F1 cut)"), "{report}");
    assert!(
        report.contains(&format!(
            "of the {routed} settled review label(s), 0 were settled by an adjudicator; 0 pair(s)"
        )),
        "{report}"
    );
    stdout_of(&mut seeded("new2.json"));
    let load = |name: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(path(name)).unwrap()).unwrap()
    };
    let (parent, child) = (load("parent.json"), load("new1.json"));
    assert_eq!(child["parent"], parent["id"]);
    let reviewed = child["training"]["reviewed_labels"].as_u64().unwrap();
    assert!(reviewed > 0);
    // Judged without the parent's held-out part, then fitted on it too.
    assert_eq!(child["training"]["fitted_on_every_pair"], true);
    assert_eq!(
        child["training"]["pairs"].as_u64().unwrap(),
        parent["training"]["pairs"].as_u64().unwrap() + reviewed
    );
    assert_eq!(
        child["id"],
        load("new2.json")["id"],
        "same seed, same model"
    );
    // The frozen set is the parent's held-out part: other training pairs cannot judge it.
    let err = stderr_of_failure(&mut retrain(&path("new.csv"), "new3.json"));
    assert!(err.contains("--eval"), "{err}");
    // --promote replaces the model only when the new one is at least as good.
    let promoted = stdout_of(seeded("new4.json").arg("--promote"));
    let now = load("parent.json");
    if promoted.contains("not promoted") {
        assert_eq!(now["id"], parent["id"]);
    } else {
        assert!(promoted.contains("promoted: "), "{promoted}");
        assert_eq!(now["id"], child["id"]);
    }

    // The page retrains in the background: one more label is the one it waits for.
    fs::write(path("start.json"), parent.to_string()).unwrap();
    let mut page = std::process::Command::new(env!("CARGO_BIN_EXE_twinpage"))
        .args([
            "review",
            "--db",
            &path("queue.db"),
            "--port",
            "0",
            "--retrain-every",
            "1",
        ])
        .args([
            "--no-render",
            "--model",
            &path("start.json"),
            "--pairs",
            "training-data/er/valid.csv",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Its stdout stays open while it serves: it says more after the address.
    let mut stdout = std::io::BufReader::new(page.stdout.take().unwrap());
    let mut said = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut said).unwrap();
    let base = said
        .trim()
        .strip_prefix("review page: ")
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    // zed agrees with the label the pair has: still one settled label per pair.
    let agreeing = if label == "1" {
        "duplicate"
    } else {
        "distinct"
    };
    let verdict = ureq::post(format!("{base}/api/verdict"))
        .header("Origin", &base)
        .header("Content-Type", "application/json")
        .send(format!(
            r#"{{"pair_id": {first}, "reviewer": "zed", "verdict": "{agreeing}"}}"#
        ))
        .unwrap();
    assert_eq!(verdict.status(), 200);
    let start = std::time::Instant::now();
    let last = loop {
        let body: serde_json::Value = ureq::get(format!("{base}/api/progress?reviewer=zed"))
            .header("Origin", &base)
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap();
        let retraining = &body["retraining"];
        assert!(retraining["error"].is_null(), "{retraining}");
        if !retraining["last"].is_null() {
            break retraining["last"].clone();
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "{retraining}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    page.kill().unwrap();
    page.wait().unwrap();
    assert_eq!(last["labels"].as_u64().unwrap() as usize, routed);
    let written = load(last["file"].as_str().unwrap());
    assert_eq!(written["parent"], parent["id"]);
    assert!(last["file"]
        .as_str()
        .unwrap()
        .starts_with(&path("queue.db.models")));
}

/// A page that allocates until its renderer runs out of memory and crashes, every
/// time: under the small script heap the test's Chromium is given, within a second.
const MEMORY_HUNGRY_PAGE: &str = "<!doctype html><html><body><p>before</p><script>\
    const kept = []; for (;;) kept.push(new Array(1000).fill(kept.length));</script></body></html>";

#[test]
fn a_failed_render_is_remembered_and_a_warm_run_starts_no_browser() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("hungry.html"), MEMORY_HUNGRY_PAGE).unwrap();
    fs::write(
        d.join("plain.html"),
        page("Plain", "", "<p>A plain page.</p>"),
    )
    .unwrap();
    let pairs = d.join("pairs.csv");
    fs::write(
        &pairs,
        "url_a,url_b,html_a,html_b\nhttps://a.example/1,https://b.example/2,hungry.html,plain.html\n",
    )
    .unwrap();
    // Chromium behind a script that notes every start but `--version` (which keys the
    // cache), with a small script heap so that the hungry page crashes soon.
    let log = d.join("launches.log");
    let chromium = d.join("chromium");
    fs::write(
        &chromium,
        format!(
            "#!/bin/sh\n[ \"$1\" = --version ] || echo launch >> '{}'\n\
             exec /usr/bin/chromium --js-flags=--max-old-space-size=32 \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    fs::set_permissions(
        &chromium,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let launches = || fs::read_to_string(&log).map_or(0, |text| text.lines().count());
    let render = |extra: &[&str]| {
        stdout_of(
            twinpage()
                .env("TWINPAGE_CHROMIUM", &chromium)
                .args([
                    "render",
                    "--screenshots",
                    "--render-deadline",
                    "1",
                    "--tabs",
                    "2",
                ])
                .arg("--pairs")
                .arg(&pairs)
                .arg("--cache")
                .arg(d.join("cache"))
                .args(extra),
        )
    };

    let cold = render(&[]);
    assert!(cold.contains("1 rendered now, 0 already in the cache, 0 stored before (pair file or --store), 1 failed (0 remembered"), "{cold}");
    // The crashed page was tried again alone, and crashed again: a browser started.
    let started = launches();
    assert!(started >= 1, "{started} launches");

    let warm = render(&[]);
    assert!(warm.contains("0 rendered now, 1 already in the cache, 0 stored before (pair file or --store), 1 failed (1 remembered"), "{warm}");
    assert_eq!(launches(), started, "a warm run started a browser");

    let retried = render(&["--retry-failed"]);
    assert!(retried.contains("1 already in the cache, 0 stored before (pair file or --store), 1 failed (0 remembered"), "{retried}");
    assert!(launches() > started, "--retry-failed rendered nothing");
}

#[test]
fn a_pair_file_asks_for_the_rendered_stage_by_its_stage_column() {
    // The unrelated pair is plain enough for the fetched-only model; asked for its
    // rendered stage (as `dedupe` asks of pairs held apart by fetched bodies alone),
    // it is rendered and decided on its rendered bodies.
    let (dir, pairs) = fixture("");
    let d = dir.path();
    let with_stage: String = fs::read_to_string(&pairs)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, line)| match i {
            0 => format!("{line},stage\n"),
            3 => format!("{line},rendered\n"),
            _ => format!("{line},\n"),
        })
        .collect();
    let staged = d.join("staged.csv");
    fs::write(&staged, with_stage).unwrap();
    let cache = d.join("cache");
    let decided_by = |pairs: &Path, name: &str| -> Vec<String> {
        let out = d.join(name);
        let extra = [
            "--render",
            "auto",
            "--tabs",
            "2",
            "--cache",
            cache.to_str().unwrap(),
        ];
        score(pairs, &out, &extra).assert().success();
        let (headers, rows) = read_csv(&out);
        let by = headers.iter().position(|h| h == "decided_by").unwrap();
        rows.iter().map(|r| r[by].clone()).collect()
    };
    assert_eq!(decided_by(&pairs, "plain.csv")[2], "fetched");
    let staged_by = decided_by(&staged, "staged-out.csv");
    assert_eq!(staged_by[2], "rendered");
    assert_eq!(
        staged_by[0], "screen:identical-bodies",
        "screening still comes first"
    );
}

#[test]
fn render_auto_renders_only_what_the_fetched_model_leaves_open() {
    let (dir, pairs) = fixture(
        "4,https://news.example.com/bridge,https://app.example.com/#/bridge,a.html,app.html,app\n",
    );
    let d = dir.path();
    fs::write(
        d.join("app.html"),
        client_rendered("Bridge closed after flood"),
    )
    .unwrap();
    let out = d.join("out.csv");
    let cache = d.join("cache");
    let cache_arg = cache.to_str().unwrap();
    let output = score(
        &pairs,
        &out,
        &["--render", "auto", "--tabs", "2", "--cache", cache_arg],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let (headers, rows) = read_csv(&out);
    let by = headers.iter().position(|h| h == "decided_by").unwrap();
    let decided_by: Vec<&str> = rows.iter().map(|r| r[by].as_str()).collect();
    // The byte-identical copy is screened; the script-built page goes to the rendered
    // model whatever the fetched-only one thinks; the unrelated pair is plain enough
    // for the fetched-only model.
    assert_eq!(decided_by[0], "screen:identical-bodies", "{stderr}");
    assert_eq!(decided_by[2], "fetched", "{stderr}");
    assert_eq!(decided_by[3], "rendered", "{stderr}");
    // Only the documents of the pairs decided on rendered bodies were rendered.
    let (a, b) = (
        headers.iter().position(|h| h == "html_a").unwrap(),
        headers.iter().position(|h| h == "html_b").unwrap(),
    );
    let open: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| r[by] == "rendered")
        .flat_map(|r| [r[a].as_str(), r[b].as_str()])
        .collect();
    let summary = format!(
        "{} of 4 pair(s) went on to the rendered model; {} of 5 document(s)",
        decided_by.iter().filter(|&&d| d == "rendered").count(),
        open.len()
    );
    assert!(stderr.contains(&summary), "{stderr}");
    let cached = walk_files(&cache)
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .count();
    assert_eq!(cached, open.len());
    // Nobody will look at these renders: no screenshot was taken.
    assert!(walk_files(&cache)
        .iter()
        .all(|p| p.extension().is_none_or(|e| e != "png")));
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk_files(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A page whose script builds a DOM of 72 MB (hidden: laying out 72 MB of text
/// takes longer than a render may): its stored render was written whole and could
/// not be read back (over the 64 MiB a stored render may hold), and `score` quietly
/// fell back to the fetched body. Rendered bodies are now cut at 4 MB, as fetched
/// bodies are, and the store reads back.
#[test]
fn a_huge_render_is_stored_readable() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let huge = "<!doctype html><html><head><title>big</title></head><body><p>start</p>\
        <div id=h style='display:none'></div><script>document.getElementById('h') \
        .textContent = 'lorem ipsum '.repeat(6000000);</script></body></html>";
    fs::write(d.join("huge.html"), huge).unwrap();
    fs::write(d.join("small.html"), page("Bridge", "Sport", ARTICLE)).unwrap();
    let pairs = d.join("pairs.csv");
    fs::write(
        &pairs,
        "url_a,url_b,html_a,html_b\nhttps://x.example/a,https://x.example/b,huge.html,small.html\n",
    )
    .unwrap();
    let stored = d.join("renders");
    let with_renders = d.join("pairs-rendered.csv");
    stdout_of(
        twinpage()
            .args(["render", "--tabs", "1", "--pairs"])
            .arg(&pairs)
            .args(["--cache"])
            .arg(d.join("cache"))
            .arg("--store")
            .arg(&stored)
            .arg("--out")
            .arg(&with_renders),
    );
    let (headers, rows) = read_csv(&with_renders);
    let column = headers.iter().position(|h| h == "rendered_a").unwrap();
    let file = fs::File::open(d.join(&rows[0][column])).unwrap();
    let json: serde_json::Value =
        serde_json::from_reader(flate2::read::GzDecoder::new(file)).expect("a readable render");
    let body = json["synthetic_body"].as_str().expect("a rendered body");
    assert!(body.starts_with("<!DOCTYPE html><html><head><title>big</title>"));
    assert!(
        (4_000_000..=4 << 20).contains(&body.len()),
        "{}",
        body.len()
    );
    assert_eq!(json["visible_text"].as_str(), Some("start"));
    // Scoring from the store needs no browser and says nothing of a fallback.
    let out = d.join("scored.csv");
    let run = score(&with_renders, &out, &["--render", "always"])
        .env("TWINPAGE_CHROMIUM", d.join("no-chromium-here"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(!said.contains("huge") && !said.contains("render"), "{said}");
}

/// A reader that stops early (`| head -1`) ends a command quietly: it panicked with
/// "failed printing to stdout: Broken pipe" and exit 101.
#[test]
fn a_closed_stdout_ends_commands_quietly() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pairs.csv");
    let pairs = examples.display().to_string();
    let commands = [
        vec!["explain", "--pairs", &pairs, "--row", "1"],
        vec!["baseline", "--method", "all", "--pairs", &pairs],
        vec!["evaluate", "--json", "--pairs", &pairs],
    ];
    for args in commands {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("twinpage"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the command writes anything.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {said}");
        assert!(
            !said.contains("panicked") && !said.contains("Broken pipe"),
            "{args:?}: {said}"
        );
    }
}

/// Renders that cannot be written to the cache (a full disk; here every shard of
/// the cache is taken by a file) are said, and `render`, whose job is to fill the
/// cache, fails: it said "2 rendered now" and exited 0.
#[test]
fn render_says_when_its_cache_cannot_be_written() {
    let (dir, pairs) = fixture("");
    let d = dir.path();
    let cache = d.join("cache");
    fs::create_dir(&cache).unwrap();
    for shard in 0..=255u8 {
        fs::write(cache.join(format!("{shard:02x}")), "not a folder").unwrap();
    }
    let said = stderr_of_failure(
        twinpage()
            .args(["render", "--tabs", "2", "--pairs"])
            .arg(&pairs)
            .arg("--cache")
            .arg(&cache),
    );
    assert!(
        said.contains("4 render(s) could not be written to the cache")
            && said.contains("give another --cache"),
        "{said}"
    );
}

/// A page whose script outgrows its browser's memory ceiling crashes the renderer
/// its browser's tabs share: it fails, named, with its reason, and the pages that
/// were rendering beside it render.
#[test]
fn a_page_that_outgrows_its_memory_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("hog.html"),
        "<html><body><p>hog</p><script>const a = []; \
         for (;;) a.push(new Array(1e6).fill(1.5));</script></body></html>",
    )
    .unwrap();
    for i in 1..=3 {
        fs::write(
            d.join(format!("ok{i}.html")),
            format!(
                "<html><body><p>page {i}</p><script>setTimeout(() => document.body\
                 .insertAdjacentHTML('beforeend', '<p>late {i}</p>'), 1500)</script></body></html>"
            ),
        )
        .unwrap();
    }
    let pairs = d.join("pairs.csv");
    fs::write(
        &pairs,
        "url_a,url_b,html_a,html_b\nhttps://x.example/1,https://x.example/2,ok1.html,hog.html\n\
         https://x.example/3,https://x.example/4,ok2.html,ok3.html\n",
    )
    .unwrap();
    let out = twinpage()
        .args(["render", "--tabs", "4", "--render-memory", "512", "--pairs"])
        .arg(&pairs)
        .arg("--cache")
        .arg(d.join("cache"))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(
        printed.contains("3 rendered now") && printed.contains("1 failed"),
        "{printed}"
    );
    assert!(
        said.contains("hog.html: out of memory (a browser process may take 512 MB"),
        "{said}"
    );
}

#[test]
fn a_model_that_decides_nothing_by_itself_says_so_when_trained() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let head = dir.path().join("head.csv");
    pair_file_head("training-data/er/valid.csv", 400, &head);
    // Labels drawn apart from the pages: no confidence can be precise on them.
    let mut reader = csv::Reader::from_path(&head).unwrap();
    let headers = reader.headers().unwrap().clone();
    let label = headers.iter().position(|h| h == "label").unwrap();
    let noisy = dir.path().join("noisy.csv");
    let mut writer = csv::Writer::from_path(&noisy).unwrap();
    writer.write_record(&headers).unwrap();
    for (i, record) in reader.records().enumerate() {
        let mut fields: Vec<String> = record.unwrap().iter().map(String::from).collect();
        let coin = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 63;
        fields[label] = coin.to_string();
        writer.write_record(&fields).unwrap();
    }
    writer.flush().unwrap();
    let out = twinpage()
        .args([
            "train",
            "--no-render",
            "--precision-target",
            "0.999",
            "--pairs",
        ])
        .arg(&noisy)
        .arg("--out")
        .arg(dir.path().join("m.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // It says that people decide: that a side decides nothing, or, when a calibration
    // cell that chance filled with one label kept a cut, that every held-out pair goes to
    // review.
    assert!(
        stderr.contains("this model decides nothing duplicate by itself")
            || stderr.contains("100 % of the held-out pairs go to review"),
        "{stderr}"
    );
    // A duplicate decision also needs its cell's confidence: the warning says so.
    if stderr.contains("decides nothing duplicate") {
        assert!(
            stderr.contains("precision 0.999 with a confidence of 0.85 or more"),
            "{stderr}"
        );
    }
}

#[test]
fn review_stats_says_how_far_two_reviewers_agree() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    stdout_of(twinpage().args([
        "score",
        "--no-render",
        "--pairs",
        "training-data/er/valid.csv",
        "--out",
        &path("scored.csv"),
        "--review-db",
        &path("queue.db"),
    ]));
    // The hand-computed table of 50 pairs: kappa 0.4 (agreement.rs).
    let mut labels = String::from("pair_id,label,reviewer\n");
    let table = [((1, 1), 20), ((1, 0), 5), ((0, 1), 10), ((0, 0), 15)];
    let mut id = 0;
    for ((ann, bo), n) in table {
        for _ in 0..n {
            id += 1;
            labels += &format!("{id},{ann},ann\n{id},{bo},bo\n");
        }
    }
    labels += "51,1,cy\n";
    fs::write(path("labels.csv"), labels).unwrap();
    let db = path("queue.db");
    stdout_of(twinpage().args([
        "review",
        "import",
        "--db",
        &db,
        "--labels",
        &path("labels.csv"),
    ]));
    let stats: serde_json::Value = serde_json::from_str(&stdout_of(
        twinpage().args(["review", "stats", "--db", &db, "--json"]),
    ))
    .unwrap();
    let pairs = stats["pairs_of_reviewers"].as_array().unwrap();
    assert_eq!(pairs.len(), 1, "{stats}");
    assert_eq!(pairs[0]["pairs"], 50);
    assert!(
        (pairs[0]["kappa"].as_f64().unwrap() - 0.4).abs() < 1e-9,
        "{stats}"
    );
    assert_eq!(stats["reviewers"].as_array().unwrap().len(), 3);
    let text = stdout_of(twinpage().args(["review", "stats", "--db", &db]));
    assert!(
        text.contains("ann / bo") && text.contains("kappa 0.400"),
        "{text}"
    );
}

/// Scoring says when the pages are unlike those the model was trained on: here the
/// papers it learnt from, whose venue and year stand under labels the reader does not
/// know. The scores are written all the same.
#[test]
fn pages_unlike_the_training_pages_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let (as_trained, relabelled) = (
        papers(dir.path(), "papers", false),
        papers(dir.path(), "relabelled", true),
    );
    let pairs = read_csv(&as_trained).1.len();
    assert!(pairs > 100);
    let model = dir.path().join("m.json");
    twinpage()
        .args(["train", "--no-render", "--seed", "3", "--pairs"])
        .arg(&as_trained)
        .arg("--out")
        .arg(&model)
        .assert()
        .success();
    let kept: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(
        kept["training"]["missing"]["shares"]
            .as_array()
            .unwrap()
            .len(),
        kept["signals"].as_array().unwrap().len()
    );
    let judge = |command: &str, pairs: &Path| -> Command {
        let mut cmd = twinpage();
        cmd.args([command, "--no-render", "--model"])
            .arg(&model)
            .arg("--pairs")
            .arg(pairs);
        cmd
    };
    let quiet = stderr_of(&mut judge("evaluate", &as_trained));
    assert!(!quiet.contains("unlike"), "{quiet}");
    let warned = stderr_of(&mut judge("evaluate", &relabelled));
    assert!(
        warned.contains("these pages are unlike those model")
            && warned.contains(
                "record.venue_similarity missing on 100 % of the pairs of two records here"
            )
            && warned.contains("record.year_equal missing on"),
        "{warned}"
    );
    let json = stdout_of(judge("evaluate", &relabelled).arg("--json"));
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let venue = report["unlike_training"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["signal"] == "record.venue_similarity")
        .expect("the venue test is named");
    assert_eq!(venue["missing_here"].as_f64(), Some(1.0));
    assert_eq!(venue["missing_in_training"].as_f64(), Some(0.0));
    let scored = dir.path().join("scored.csv");
    let said = stderr_of(judge("score", &relabelled).arg("--out").arg(&scored));
    assert!(said.contains("unlike"), "{said}");
    assert_eq!(read_csv(&scored).1.len(), pairs);
}
