//! The Spark driver (`scale/`) against the one-machine commands, in real Spark local
//! mode: on 10,000 synthetic documents, `scale/run-local.sh candidates` writes the
//! bytes `twinpage candidates` writes, and `pipeline` the bytes of `candidates`,
//! `score` and `cluster`. The first run installs what the driver needs (Java when
//! missing, pyspark in target/scale-venv), as a new machine would.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::twinpage;

/// The synthetic crawl of `scripts/synthetic-corpus.py` (10,000 documents, 5 % edited
/// copies), rewritten as a table that exercises what the driver must carry over:
/// paths relative to the table, an id column and a note column with commas, quotes, a
/// line break and spaces (written back as `_a`/`_b` columns), and exact copies of 30
/// documents (1 to 4 each) so that `score` decides duplicates (identical bodies) and
/// `cluster --max-size 3` marks the larger clusters too-large.
fn corpus(dir: &Path) -> PathBuf {
    let status = Command::new("python3")
        .arg("scripts/synthetic-corpus.py")
        .arg(dir)
        .args(["--docs", "10000"])
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
    w.flush().unwrap();
    table
}

/// `scale/run-local.sh ARGS` with the binary under test.
fn spark(args: &[&str]) -> std::process::Output {
    Command::new("scale/run-local.sh")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TWINPAGE_BIN", env!("CARGO_BIN_EXE_twinpage"))
        .output()
        .unwrap()
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
    let options = ["--threshold", "0.75", "--text", "visible"];
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
    // 507 planted near-copies and the exact copies, each pair once.
    assert!((550..1000).contains(&pairs), "{pairs} pairs");

    // The pipeline into another folder (absolute paths), fetched-only model (no
    // browser), a small --max-size so that the chaining guard has clusters to mark.
    let (one, many) = (path("one"), path("pipeline"));
    fs::create_dir_all(&one).unwrap();
    let model = "models/fetched-only.json";
    let file = |d: &str, f: &str| format!("{d}/{f}");
    one_machine(&[
        "candidates",
        "--docs",
        table,
        "--method",
        "lsh",
        "--out",
        &file(&one, "candidates.csv"),
    ]);
    one_machine(&[
        "score",
        "--pairs",
        &file(&one, "candidates.csv"),
        "--model",
        model,
        "--out",
        &file(&one, "scores.csv"),
    ]);
    one_machine(&[
        "cluster",
        "--scored",
        &file(&one, "scores.csv"),
        "--max-size",
        "3",
        "--out",
        &file(&one, "clusters.csv"),
    ]);
    succeeds(spark(&[
        "pipeline",
        "--docs",
        table,
        "--out",
        &many,
        "--model",
        model,
        "--max-size",
        "3",
    ]));
    for f in ["candidates.csv", "scores.csv", "clusters.csv"] {
        same(Path::new(&file(&one, f)), Path::new(&file(&many, f)));
    }
    let clusters = fs::read_to_string(file(&many, "clusters.csv")).unwrap();
    assert!(
        clusters.contains(",ok,") && clusters.contains(",too-large,"),
        "{clusters:.300}"
    );
    assert!(fs::read_to_string(file(&many, "scores.csv"))
        .unwrap()
        .contains(",duplicate,"));
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
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join("x.csv").exists());
}

#[test]
fn a_failure_on_an_executor_is_a_message_and_no_output() {
    // Three documents, two alike; the model to score them with does not exist, which
    // only the executors running `twinpage score` find out.
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
    let out = dir.join("run");
    let run = spark(&[
        "pipeline",
        "--docs",
        docs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--model",
        "no/such/model.json",
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("twinpage-spark: error: twinpage score failed")
            && stderr.contains("no/such/model.json"),
        "{stderr}"
    );
    // The step before the failure wrote its whole file; the failed one wrote nothing.
    assert!(out.join("candidates.csv").exists());
    assert!(!out.join("scores.csv").exists());
    let left: Vec<_> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
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
/// master and two workers come up, the driver submitted to the master writes the
/// bytes of the one-machine command, again when a worker is killed mid-job, and
/// `down` leaves no JVM.
#[test]
fn a_standalone_cluster_of_two_workers_writes_what_one_machine_writes() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("scale-cluster");
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let status = Command::new("python3")
        .arg("scripts/synthetic-corpus.py")
        .arg(&dir)
        .args(["--docs", "2000"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success(), "scripts/synthetic-corpus.py failed");
    let docs = dir.join("docs.csv").display().to_string();
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

    succeeds(spark(&[
        "candidates",
        "--master",
        "spark://127.0.0.1:7277",
        "--docs",
        &docs,
        "--out",
        &path("cluster.csv"),
    ]));
    one_machine(&[
        "candidates",
        "--docs",
        &docs,
        "--method",
        "lsh",
        "--out",
        &path("one.csv"),
    ]);
    same(&dir.join("one.csv"), &dir.join("cluster.csv"));

    // The same with a worker lost mid-job, as a machine is: the worker and every
    // process below it (its executor, Python workers, the binary) killed while it
    // sketches. Spark runs its tasks
    // again on the other worker, and every task writes only what it returns.
    let run = Command::new("scale/run-local.sh")
        .args([
            "candidates",
            "--master",
            "spark://127.0.0.1:7277",
            "--docs",
            &docs,
        ])
        .args(["--out", &path("lost.csv")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TWINPAGE_BIN", env!("CARGO_BIN_EXE_twinpage"))
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
    succeeds(run.wait_with_output().unwrap());
    same(&dir.join("one.csv"), &dir.join("lost.csv"));
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
