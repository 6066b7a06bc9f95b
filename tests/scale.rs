//! The Spark driver (`scale/`) against the one-machine commands, in real Spark local
//! mode and on a standalone cluster of separate JVMs: on 10,000 synthetic documents,
//! `scale/run.sh candidates` writes the bytes `twinpage candidates` writes, and
//! `scale/run.sh dedupe` the run files of `twinpage dedupe` (verification rounds
//! included), also with a worker killed mid-job. The first run installs what the
//! driver needs (Java when missing, pyspark in target/scale-venv), as a new machine
//! would.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{papers, twinpage};

/// The synthetic crawl of `scripts/synthetic-corpus.py` (10,000 documents, 5 % edited
/// copies, and 100 stories as page 1, the whole and page 2, whose pairs chain so that
/// `dedupe` judges page 1 against page 2 in a verification round: the two pages are on
/// one site, whose records are not paired), rewritten as a table that exercises what the
/// driver must carry over:
/// paths relative to the table, an id column and a note column with commas, quotes, a
/// line break and spaces (written back as `_a`/`_b` columns), and exact copies of 30
/// documents (1 to 4 each) so that `score` decides duplicates (identical bodies) and
/// `cluster --max-size 3` marks the larger clusters too-large, and one document at 40
/// more URLs, which `--text both` pairs as a star.
fn corpus(dir: &Path) -> PathBuf {
    let status = Command::new("python3")
        .arg("scripts/synthetic-corpus.py")
        .arg(dir)
        .args(["--docs", "10000", "--chains", "100"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success(), "scripts/synthetic-corpus.py failed");
    let mut reader = csv::Reader::from_path(dir.join("docs.csv")).unwrap();
    let docs: Vec<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            let html = Path::new(&r[1]).strip_prefix(dir).unwrap();
            (r[0].to_string(), html.display().to_string())
        })
        .collect();
    let table = dir.join("table.csv");
    let mut w = csv::Writer::from_path(&table).unwrap();
    w.write_record(["id", "url", "html", "note"]).unwrap();
    let notes = ["plain", "a, comma", "a \"quote\"", "two\nlines", " spaced "];
    for (i, (url, html)) in docs.iter().enumerate() {
        let id = i.to_string();
        w.write_record([id.as_str(), url, html, notes[i % notes.len()]])
            .unwrap();
    }
    fs::create_dir_all(dir.join("copies")).unwrap();
    let mut id = docs.len();
    for source in 0..30 {
        let (_, html) = &docs[source * 37];
        for copy in 0..=source % 4 {
            let path = format!("copies/{source}-{copy}.html");
            fs::copy(dir.join(html), dir.join(&path)).unwrap();
            let url = format!("https://mirror{copy}.example/{source}");
            w.write_record([id.to_string().as_str(), &url, &path, "copy"])
                .unwrap();
            id += 1;
        }
    }
    // One page served at 40 more URLs: more than 32 of one sketch are paired as a star
    // around the first by URL (a later row, not the page's first one).
    let (_, html) = &docs[999];
    for copy in 0..40 {
        let url = format!("https://a-wall.example/{copy}");
        w.write_record([id.to_string().as_str(), &url, html, "served again"])
            .unwrap();
        id += 1;
    }
    w.flush().unwrap();
    table
}

/// `scale/run.sh ARGS` with the binary under test.
fn spark_command(args: &[&str]) -> Command {
    let mut command = Command::new("scale/run.sh");
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TWINPAGE_BIN", env!("CARGO_BIN_EXE_twinpage"));
    command
}

fn spark(args: &[&str]) -> std::process::Output {
    spark_command(args).output().unwrap()
}

/// The files of a `dedupe` run that say what it found.
const RUN_FILES: [&str; 4] = [
    "candidates.csv",
    "pairs.csv",
    "clusters.csv",
    "summary.json",
];

/// `twinpage dedupe` of `table` on one machine, fetched bodies only, into `out`.
fn dedupe_one_machine(table: &str, out: &Path) -> serde_json::Value {
    one_machine(&[
        "dedupe",
        table,
        "--no-render",
        "--out",
        out.to_str().unwrap(),
    ]);
    serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// The run files of two runs hold the same bytes.
fn same_run(a: &Path, b: &Path) {
    for f in RUN_FILES {
        same(&a.join(f), &b.join(f));
    }
}

fn succeeds(out: std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

fn one_machine(args: &[&str]) {
    let out = twinpage().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Files `a` and `b` hold the same bytes (when not, says where they part).
fn same(a: &Path, b: &Path) {
    let (x, y) = (
        fs::read_to_string(a).unwrap(),
        fs::read_to_string(b).unwrap(),
    );
    if x != y {
        let first = x.lines().zip(y.lines()).position(|(p, q)| p != q);
        panic!(
            "{} and {} differ ({} and {} lines; first different line {first:?})",
            a.display(),
            b.display(),
            x.lines().count(),
            y.lines().count()
        );
    }
}

#[test]
fn the_spark_driver_writes_what_the_one_machine_commands_write() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scale");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let table = corpus(&dir);
    let table = table.to_str().unwrap();
    let path = |name: &str| dir.join(name).display().to_string();

    // Candidates beside the table: paths as written; other options than the defaults.
    let options = ["--threshold", "0.75", "--text", "both"];
    one_machine(
        &[
            &[
                "candidates",
                "--docs",
                table,
                "--method",
                "lsh",
                "--out",
                &path("one.csv"),
            ][..],
            &options,
        ]
        .concat(),
    );
    succeeds(spark(
        &[
            &["candidates", "--docs", table, "--out", &path("spark.csv")][..],
            &options,
        ]
        .concat(),
    ));
    same(&dir.join("one.csv"), &dir.join("spark.csv"));
    let pairs = fs::read_to_string(dir.join("one.csv"))
        .unwrap()
        .matches("\nhttps://")
        .count();
    // 507 planted near-copies and the exact copies, each pair once (at 0.75 the pages
    // of a story, which share half their words with the whole, are no pair).
    assert!((550..1000).contains(&pairs), "{pairs} pairs");

    // dedupe of the same table, fetched bodies only (no browser): the run's files
    // as one machine writes them, after a verification round.
    let (one, many) = (dir.join("one-run"), dir.join("spark-run"));
    let summary = dedupe_one_machine(table, &one);
    succeeds(spark(&[
        "dedupe",
        table,
        "--no-render",
        "--out",
        many.to_str().unwrap(),
    ]));
    same_run(&one, &many);
    // Few pairs are left to verify: the record pairs (short pages are read as records,
    // named by their titles) judge most members against their centers beforehand.
    assert!(
        summary["rounds"].as_u64() >= Some(1) && summary["verified_pairs"].as_u64() >= Some(1),
        "{summary}"
    );
    assert!(summary["clusters"].as_u64() >= Some(100), "{summary}");
    assert!(many.join("report.html").is_file() && many.join("verify-1.scored.csv").is_file());
}

/// A crawl on Spark: read once on the driver (`dedupe --until read`), its pages built
/// by script rendered on the executors from the crawl's own archived responses, with a
/// render cache of their own: the run files of one machine.
#[test]
fn a_crawl_is_read_once_and_rendered_from_its_archive_on_the_executors() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scale-crawl");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let crawls = [
        "tests/crawls/wget.warc.gz",
        "tests/crawls/warcio.warc.gz",
        "tests/crawls/warcio-revisit.warc.gz",
    ];
    let run = |name: &str| {
        let out = dir.join(name).display().to_string();
        let cache = dir.join(format!("{name}-cache")).display().to_string();
        [crawls.to_vec(), vec!["--out", &out, "--cache", &cache]]
            .concat()
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let one = run("one");
    let one: Vec<&str> = one.iter().map(String::as_str).collect();
    one_machine(&[&["dedupe"][..], &one].concat());
    let many = run("many");
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    succeeds(spark(&[&["dedupe"][..], &many].concat()));
    same_run(&dir.join("one"), &dir.join("many"));
    same(&dir.join("one/docs.csv"), &dir.join("many/docs.csv"));
    // The page whose text its archived script writes was rendered, from the archive,
    // in the executors' own cache.
    let clusters = fs::read_to_string(dir.join("many/clusters.csv")).unwrap();
    assert!(clusters.contains("app.html"), "{clusters}");
    assert!(fs::read_dir(dir.join("many-cache")).unwrap().count() > 0);
}

/// What the binary warns of reaches the driver's stderr (an executor's stderr is in no
/// one's sight): papers whose venue and year stand under labels the record reader does
/// not know, deduplicated by a model trained on papers whose labels it reads, are said
/// to be unlike its training pages on Spark as on one machine.
#[test]
fn pages_unlike_the_training_pages_are_said_on_spark_as_on_one_machine() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scale-unlike");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    let trained_on = papers(&dir, "papers", false);
    one_machine(&[
        "train",
        "--no-render",
        "--seed",
        "3",
        "--pairs",
        trained_on.to_str().unwrap(),
        "--out",
        &path("m.json"),
    ]);
    // The relabelled papers as a crawl's table, each page once.
    let mut pages = BTreeSet::new();
    let mut reader = csv::Reader::from_path(papers(&dir, "relabelled", true)).unwrap();
    for row in reader.records() {
        let row = row.unwrap();
        pages.extend([
            (row[0].to_string(), row[2].to_string()),
            (row[1].to_string(), row[3].to_string()),
        ]);
    }
    let mut table = csv::Writer::from_path(dir.join("docs.csv")).unwrap();
    table.write_record(["url", "html"]).unwrap();
    for (url, html) in &pages {
        table.write_record([url, html]).unwrap();
    }
    table.flush().unwrap();
    let (table, model) = (path("docs.csv"), path("m.json"));
    let run = |out: &str| {
        let out = path(out);
        [
            &table,
            "--no-render",
            "--fetched-model",
            &model,
            "--out",
            &out,
        ]
        .map(String::from)
    };
    let one = succeeds(twinpage().arg("dedupe").args(run("one")).output().unwrap());
    let many = succeeds(spark(
        &[&["dedupe"][..], &run("many").each_ref().map(String::as_str)].concat(),
    ));
    let said = "record.venue_similarity missing on 100 % of the pairs of two records here";
    for stderr in [&one, &many] {
        assert!(
            stderr.contains("these pages are unlike those model") && stderr.contains(said),
            "{stderr}"
        );
    }
    same_run(&dir.join("one"), &dir.join("many"));
}

#[test]
fn the_spark_driver_says_what_to_fix_before_starting_spark() {
    let fails = |args: &[&str], code: i32, says: &str| {
        let out = spark(args);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    };
    fails(
        &["candidates", "--docs", "no/such.csv", "--out", "x.csv"],
        1,
        "no/such.csv: no such file",
    );
    fails(
        &[
            "candidates",
            "--docs",
            "Cargo.toml",
            "--out",
            "x.csv",
            "--method",
            "simhash",
        ],
        2,
        "not supported on Spark yet: use --method lsh",
    );
    fails(
        &[
            "candidates",
            "--docs",
            "Cargo.toml",
            "--out",
            "x.csv",
            "--threshold",
            "2",
        ],
        1,
        "the threshold is a Jaccard in (0, 1], not 2",
    );
    fails(
        &[
            "candidates",
            "--docs",
            "Cargo.toml",
            "--out",
            "x.csv",
            "--lsh-hashes",
            "many",
        ],
        2,
        "--lsh-hashes",
    );
    fails(&["sideways"], 2, "invalid choice");
    // dedupe: the binary opens the run first, so its own checks speak.
    fails(
        &["dedupe", "tests", "--out", "x-run"],
        1,
        "a folder; on Spark give a docs.csv",
    );
    fails(
        &["dedupe", "no/such.warc", "--out", "x-run", "--no-render"],
        1,
        "no/such.warc",
    );
    fails(
        &[
            "dedupe",
            "Cargo.toml",
            "--out",
            "x-run",
            "--model",
            "no/such/model.json",
        ],
        1,
        "no/such/model.json",
    );
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("x.csv").exists());
    let _ = fs::remove_dir_all(Path::new(env!("CARGO_MANIFEST_DIR")).join("x-run"));
}

#[test]
fn a_failure_on_an_executor_is_a_message_and_no_output() {
    // A run whose candidates (found by an earlier invocation) name a document that is
    // gone since: only the executors scoring them find out.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scale-failure");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let text = "the same words of a page about swifts nesting under the eaves of a school";
    for (name, body) in [("a", text), ("b", text), ("c", "something else entirely")] {
        fs::write(dir.join(format!("{name}.html")), format!("<p>{body}</p>")).unwrap();
    }
    let docs = dir.join("docs.csv");
    fs::write(
        &docs,
        "url,html\nhttp://a/,a.html\nhttp://b/,b.html\nhttp://c/,c.html\n",
    )
    .unwrap();
    let (docs, out) = (docs.to_str().unwrap(), dir.join("run"));
    let args = [
        "dedupe",
        docs,
        "--no-render",
        "--out",
        out.to_str().unwrap(),
    ];
    one_machine(&[&args[..], &["--until", "candidates"]].concat());
    fs::remove_file(dir.join("b.html")).unwrap();
    let run = spark(&args);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("twinpage-spark: error: twinpage score failed")
            && stderr.contains("b.html"),
        "{stderr}"
    );
    // The stage before the failure kept its whole file; the failed one wrote nothing.
    assert!(out.join("candidates.csv").exists());
    let mut left: Vec<_> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["candidates.csv", "run.json"]);
}

/// `scale/cluster.sh ACTION` for the cluster of this test: ports of its own, its state
/// in `state`.
fn cluster(action: &str, state: &Path) -> std::process::Output {
    Command::new("scale/cluster.sh")
        .arg(action)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("SPARK_MASTER_PORT", "7277")
        .env("SPARK_MASTER_WEBUI_PORT", "8280")
        .env("TWINPAGE_SPARK_CLUSTER", state)
        .output()
        .unwrap()
}

/// Takes the cluster down however the test ends.
struct Down<'a>(&'a Path);

impl Drop for Down<'_> {
    fn drop(&mut self) {
        cluster("down", self.0);
    }
}

/// Every live process and its parent.
fn parents() -> Vec<(i32, i32)> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid ...: the comm may hold spaces, not a ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok());
        if let Some(ppid) = ppid {
            found.push((pid, ppid));
        }
    }
    found
}

/// `root` and every process below it (the worker, its executor, the executor's Python
/// workers, which put themselves in a process group of their own, and the binary).
fn process_tree(root: i32) -> Vec<i32> {
    let all = parents();
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(all.iter().filter(|&&(_, p)| p == parent).map(|&(c, _)| c));
        i += 1;
    }
    tree
}

/// Whether `twinpage sketch` runs among `pids`.
fn sketching(pids: &[i32]) -> bool {
    pids.iter().any(|pid| {
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        String::from_utf8_lossy(&cmdline)
            .replace('\0', " ")
            .contains(" sketch ")
    })
}

/// Processes of the test cluster: those whose command line names its master, and
/// those working in its state folder (the executors, in their workers' folders).
fn cluster_processes(state: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let cwd = fs::read_link(entry.path().join("cwd")).unwrap_or_default();
        let names_master = cmdline.contains("127.0.0.1:7277") || cmdline.contains("--port 7277");
        if names_master || cwd.starts_with(state) {
            found.push(cmdline);
        }
    }
    found
}

/// A standalone cluster of separate JVMs on this machine (`scale/cluster.sh`): a
/// master and two workers come up, `dedupe` submitted to the master writes the run
/// files of the one-machine command on 10,000 documents, again when a worker is
/// killed mid-job, and `down` leaves no JVM.
#[test]
fn a_standalone_cluster_of_two_workers_writes_what_one_machine_writes() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scale-cluster");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let table = corpus(&dir);
    let table = table.to_str().unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    let state = dir.join("cluster");
    let _down = Down(&state);

    let up = cluster("up", &state);
    assert!(
        up.status.success(),
        "{}",
        String::from_utf8_lossy(&up.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&up.stdout),
        "spark://127.0.0.1:7277\n"
    );
    let seen = cluster("status", &state);
    assert!(
        String::from_utf8_lossy(&seen.stdout).contains("with 2 live worker(s)"),
        "{}",
        String::from_utf8_lossy(&seen.stdout)
    );
    let jvms = cluster_processes(&state);
    assert_eq!(jvms.len(), 3, "a master and two workers: {jvms:#?}");

    let master = "spark://127.0.0.1:7277";
    let one = dir.join("one-run");
    dedupe_one_machine(table, &one);
    let run = |name: &str| {
        spark_command(&[
            "--master",
            master,
            "dedupe",
            table,
            "--no-render",
            "--out",
            &path(name),
        ])
    };
    succeeds(run("cluster-run").output().unwrap());
    same_run(&one, &dir.join("cluster-run"));

    // The same with a worker lost mid-job, as a machine is: the worker and every
    // process below it (its executor, Python workers, the binary) killed while it
    // sketches. Spark runs its tasks again on the other worker, and every task
    // writes only what it returns.
    let lost = run("lost-run")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let worker: i32 = fs::read_to_string(state.join("worker1.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let started = std::time::Instant::now();
    while !sketching(&process_tree(worker)) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "worker 1 never ran a sketch task"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    for pid in process_tree(worker) {
        // SAFETY: kill(2) of processes this test's cluster started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    succeeds(lost.wait_with_output().unwrap());
    same_run(&one, &dir.join("lost-run"));
    let seen = cluster("status", &state);
    assert!(
        String::from_utf8_lossy(&seen.stdout).contains("with 1 live worker(s)"),
        "{}",
        String::from_utf8_lossy(&seen.stdout)
    );

    let down = cluster("down", &state);
    assert!(
        down.status.success(),
        "{}",
        String::from_utf8_lossy(&down.stderr)
    );
    assert_eq!(
        cluster_processes(&state),
        Vec::<String>::new(),
        "JVMs left after down"
    );
    assert!(!cluster("status", &state).status.success());
}
