#!/usr/bin/env python3
"""Helpers for tests/crawls/make.sh (run inside the venv that has warcio and wacz).

Subcommands (all write into --out, the tests/crawls folder):
  warcio    fetch pages from the fixture server and write warcio.warc.gz,
            warcio.warc and warcio-revisit.warc.gz with warcio's WARCWriter
  pages     write pages.jsonl and pages-bad.jsonl
  break     derive truncated.warc.gz and corrupt.warc from the wget files
  expected  write expected/<file>.jsonl (the record index as warcio sees it),
            expected/<file>.error.json where warcio fails, and
            expected/crawl.wacz.json
  check     re-read everything and compare with expected/ (seek to each
            offset, parse exactly one record there, check digests, compare
            with `warcio index` output, check the WACZ)
"""
import argparse
import base64
import collections
import gzip
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import uuid
import zipfile
from importlib.metadata import version

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeadersParser
from warcio.warcwriter import WARCWriter

HOST = "twinpage.test"
BASE = "http://%s" % HOST
HERE = os.path.dirname(os.path.abspath(__file__))
SITE = os.path.join(HERE, "site")
ID_NAMESPACE = uuid.UUID("6f0c2a43-6d9e-4c55-9a43-2b7d1c7e0a11")

# Every WARC file this folder holds, in the order the index lists them.
WARCS = [
    "wget.warc.gz",
    "wget-plain.warc",
    "warcio.warc.gz",
    "warcio.warc",
    "warcio-revisit.warc.gz",
    "truncated.warc.gz",
    "corrupt.warc",
]

# The record whose gzip member truncated.warc.gz is cut in the middle of;
# corrupt.warc is wget-plain.warc up to the end of CORRUPT_KEEP_UNTIL (to
# keep the folder small) with the version line of CORRUPT_AT damaged.
TRUNCATE_IN = ("response", BASE + "/other.html")
CORRUPT_AT = ("response", BASE + "/other.html")
CORRUPT_KEEP_UNTIL = ("response", BASE + "/static/app.js?v=123")  # last record kept
CORRUPT_FROM = b"WARC/1.0\r\n"
CORRUPT_TO = b"WARC/?!#\r\n"  # same length: later offsets do not move


def record_id(name):
    return "<urn:uuid:%s>" % uuid.uuid5(ID_NAMESPACE, name)


def sha1_b32(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


# ---------------------------------------------------------------- warcio


def fetch(port, path):
    """GET path from the fixture server; return (request bytes, response bytes as sent)."""
    req = ("GET %s HTTP/1.1\r\n"
           "Host: %s\r\n"
           "User-Agent: twinpage-fixtures/1.0 (warcio %s)\r\n"
           "Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n"
           "Accept-Encoding: gzip\r\n"
           "Connection: close\r\n"
           "\r\n" % (path, HOST, version("warcio"))).encode("ascii")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(req)
        chunks = []
        while True:
            b = s.recv(65536)
            if not b:
                break
            chunks.append(b)
    return req, b"".join(chunks)


def warcio_records(port, writer):
    """Build the records of warcio.warc(.gz) in order. Returns (records, facts)."""
    dates = iter("2024-05-01T12:00:%02d.%06dZ" % (i, 125000 * (i % 8)) for i in range(60))
    info_id = record_id("warcio.warc/warcinfo")
    records = []
    facts = {}

    info = writer.create_warcinfo_record("warcio.warc.gz", collections.OrderedDict([
        ("software", "warcio/%s (twinpage test fixtures, tests/crawls/fixtures.py)" % version("warcio")),
        ("format", "WARC File Format 1.1"),
        ("conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"),
        ("isPartOf", "twinpage-test-fixtures"),
        ("description", "Written for twinpage tests; public domain (CC0)."),
    ]))
    info.rec_headers.replace_header("WARC-Record-ID", info_id)
    info.rec_headers.replace_header("WARC-Date", next(dates))
    records.append(info)

    def exchange(path, with_request=True):
        url = BASE + path
        req, resp = fetch(port, path)
        date = next(dates)
        resp_id = record_id("warcio.warc/response " + url)
        response = writer.create_warc_record(
            url, "response", payload=io.BytesIO(resp), length=len(resp),
            warc_headers_dict=collections.OrderedDict([
                ("WARC-Record-ID", resp_id),
                ("WARC-Date", date),
                ("WARC-Warcinfo-ID", info_id),
                ("WARC-IP-Address", "127.0.0.1"),
            ]))
        if with_request:
            request = writer.create_warc_record(
                url, "request", payload=io.BytesIO(req), length=len(req),
                warc_headers_dict=collections.OrderedDict([
                    ("WARC-Record-ID", record_id("warcio.warc/request " + url)),
                    ("WARC-Date", date),
                    ("WARC-Warcinfo-ID", info_id),
                    ("WARC-Concurrent-To", resp_id),
                ]))
            records.append(request)
        records.append(response)
        facts[url] = {"id": resp_id, "date": date, "raw": resp,
                      "digest": response.rec_headers.get_header("WARC-Payload-Digest")}
        return response

    for path in ["/article.html", "/article-copy.html", "/other.html", "/app.html",
                 "/static/app.js?v=123"]:
        exchange(path)
    # The rest as responses alone (no request record), to keep the files small.
    for path in ["/static/logo.png", "/chunked.html", "/gzip.html",
                 "/charset-header.html", "/charset-meta.html"]:
        exchange(path, with_request=False)

    # An HTML page kept as a resource record (no HTTP headers), e.g. a page
    # saved by a browser extension: the bytes of other.html under another URL.
    saved = open(os.path.join(SITE, "other.html"), "rb").read()
    records.append(writer.create_warc_record(
        BASE + "/saved/other.html", "resource", payload=io.BytesIO(saved), length=len(saved),
        warc_content_type="text/html",
        warc_headers_dict=collections.OrderedDict([
            ("WARC-Record-ID", record_id("warcio.warc/resource saved/other.html")),
            ("WARC-Date", next(dates)),
            ("WARC-Warcinfo-ID", info_id),
        ])))

    # Revisit of article.html whose original response is earlier in this file.
    article = facts[BASE + "/article.html"]
    records.append(revisit(writer, BASE + "/article.html", article, next(dates),
                           record_id("warcio.warc/revisit article.html"), info_id))

    # Revisit whose original is in no file at all.
    absent_url = BASE + "/archived-elsewhere.html"
    absent = {"id": None, "date": "2023-11-02T09:15:00Z",
              "digest": sha1_b32(b"archived-elsewhere.html: this payload is in no fixture file\n"),
              "raw": b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                     b"Date: Wed, 01 May 2024 12:00:00 GMT\r\n\r\n"}
    records.append(revisit(writer, absent_url, absent, next(dates),
                           record_id("warcio.warc/revisit archived-elsewhere.html"), info_id))
    return records, facts


def revisit(writer, url, original, date, rid, info_id):
    """identical-payload-digest revisit: HTTP headers of the new fetch, no body."""
    http_headers = StatusAndHeadersParser(["HTTP/1.0", "HTTP/1.1"]).parse(io.BytesIO(original["raw"]))
    headers = collections.OrderedDict([
        ("WARC-Record-ID", rid),
        ("WARC-Date", date),
        ("WARC-Warcinfo-ID", info_id),
    ])
    if original["id"]:
        headers["WARC-Refers-To"] = original["id"]
    return writer.create_revisit_record(url, original["digest"], url, original["date"],
                                        http_headers=http_headers, warc_headers_dict=headers)


def cmd_warcio(args):
    out = args.out
    facts = None
    for name, gz in [("warcio.warc.gz", True), ("warcio.warc", False)]:
        with open(os.path.join(out, name), "wb") as fh:
            writer = WARCWriter(fh, gzip=gz, warc_version="1.1")
            records, facts = warcio_records(args.port, writer)
            for r in records:
                writer.write_record(r)
    # The stored response blocks must be the bytes the server sent (chunked
    # framing and gzip body included), not a re-encoding.
    for name in ["warcio.warc.gz", "warcio.warc"]:
        with open(os.path.join(out, name), "rb") as fh:
            for r in ArchiveIterator(fh, no_record_parse=True):
                if r.rec_type == "response":
                    url = r.rec_headers.get_header("WARC-Target-URI")
                    assert r.raw_stream.read() == facts[url]["raw"], (name, url)

    # warcio-revisit.warc.gz: a later crawl, whose revisit's original is in warcio.warc.gz.
    with open(os.path.join(out, "warcio-revisit.warc.gz"), "wb") as fh:
        writer = WARCWriter(fh, gzip=True, warc_version="1.1")
        info_id = record_id("warcio-revisit.warc/warcinfo")
        info = writer.create_warcinfo_record("warcio-revisit.warc.gz", collections.OrderedDict([
            ("software", "warcio/%s (twinpage test fixtures, tests/crawls/fixtures.py)" % version("warcio")),
            ("format", "WARC File Format 1.1"),
            ("isPartOf", "twinpage-test-fixtures"),
            ("description", "A later crawl: its revisit refers to a response in warcio.warc.gz."),
        ]))
        info.rec_headers.replace_header("WARC-Record-ID", info_id)
        info.rec_headers.replace_header("WARC-Date", "2024-05-08T12:00:00.000000Z")
        writer.write_record(info)
        other = facts[BASE + "/other.html"]
        writer.write_record(revisit(writer, BASE + "/other.html", other, "2024-05-08T12:00:01.500000Z",
                                    record_id("warcio-revisit.warc/revisit other.html"), info_id))


# ---------------------------------------------------------------- pages


def cmd_pages(args):
    lines = []
    for name in ["article.html", "article-copy.html", "other.html"]:
        html = open(os.path.join(SITE, name), encoding="utf-8").read()
        lines.append(json.dumps({"url": "%s/%s" % (BASE, name), "html": html}, ensure_ascii=False))
    with open(os.path.join(args.out, "pages.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    # Short lines: line 3 of 4 is not JSON (an unterminated string).
    small = lambda name, text: json.dumps({"url": "%s/%s" % (BASE, name), "html": "<!DOCTYPE html><html><head><title>%s</title></head><body><p>%s</p></body></html>" % (text, text)})
    bad = [small("short-1.html", "First short page."), small("short-2.html", "Second short page."),
           '{"url": "http://twinpage.test/broken.html", "html": "<p>this line is not JSON',
           small("short-4.html", "Fourth short page.")]
    with open(os.path.join(args.out, "pages-bad.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(bad) + "\n")


# ---------------------------------------------------------------- index


def index(path):
    """Records as warcio sees them: list of dicts, plus the error if warcio fails."""
    rows = []
    error = None
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        try:
            for r in it:
                status = None
                if r.rec_type in ("response", "revisit") and r.http_headers:
                    status = int(r.http_headers.get_statuscode())
                rows.append(collections.OrderedDict([
                    ("type", r.rec_type),
                    ("url", r.rec_headers.get_header("WARC-Target-URI")),
                    ("offset", it.get_record_offset()),
                    ("length", it.get_record_length()),
                    ("status", status),
                    ("refers_to", r.rec_headers.get_header("WARC-Refers-To-Target-URI")),
                ]))
        except Exception as e:  # noqa: BLE001 - we record whatever warcio raises
            error = {"records_before_error": len(rows), "error_type": type(e).__name__,
                     "error": " ".join(str(e).split())}
    return rows, error


def find(rows, key):
    for row in rows:
        if (row["type"], row["url"]) == key:
            return row
    raise SystemExit("record %r not found" % (key,))


def cmd_break(args):
    out = args.out
    rows, err = index(os.path.join(out, "wget.warc.gz"))
    assert err is None, err
    row = find(rows, TRUNCATE_IN)
    cut = row["offset"] + row["length"] // 2
    data = open(os.path.join(out, "wget.warc.gz"), "rb").read()
    open(os.path.join(out, "truncated.warc.gz"), "wb").write(data[:cut])

    rows, err = index(os.path.join(out, "wget-plain.warc"))
    assert err is None, err
    row = find(rows, CORRUPT_AT)
    assert 0 < rows.index(row) < len(rows) - 1
    last = find(rows, CORRUPT_KEEP_UNTIL)
    assert rows.index(last) > rows.index(row) + 2
    end = last["offset"] + last["length"] + 4  # uncompressed: warcio's length leaves out the closing CRLFCRLF
    data = bytearray(open(os.path.join(out, "wget-plain.warc"), "rb").read()[:end])
    assert data.endswith(b"\r\n\r\n")
    at = row["offset"]
    assert data[at:at + len(CORRUPT_FROM)] == CORRUPT_FROM
    data[at:at + len(CORRUPT_TO)] = CORRUPT_TO
    open(os.path.join(out, "corrupt.warc"), "wb").write(bytes(data))
    json.dump({"truncated.warc.gz": {"cut_at": cut, "inside": list(TRUNCATE_IN)},
               "corrupt.warc": {"damaged_at": at, "inside": list(CORRUPT_AT),
                                "prefix_of_wget_plain_warc": end, "last_record": list(CORRUPT_KEEP_UNTIL),
                                "was": CORRUPT_FROM.decode(), "now": CORRUPT_TO.decode()}},
              open(os.path.join(out, "expected", "broken.json"), "w"), indent=2)


def cmd_expected(args):
    out = args.out
    exp = os.path.join(out, "expected")
    for name in WARCS:
        rows, err = index(os.path.join(out, name))
        with open(os.path.join(exp, name + ".jsonl"), "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        err_path = os.path.join(exp, name + ".error.json")
        if err:
            json.dump(err, open(err_path, "w"), indent=2)
        elif os.path.exists(err_path):
            os.remove(err_path)
    with zipfile.ZipFile(os.path.join(out, "crawl.wacz")) as z:
        pages = [json.loads(l) for l in z.read("pages/pages.jsonl").decode().splitlines() if l.strip()]
        summary = collections.OrderedDict([
            ("entries", sorted(z.namelist())),
            ("archive", {"archive/wget.warc.gz": "byte-identical to wget.warc.gz"}),
            ("pages_header", pages[0]),
            ("pages", [p["url"] for p in pages[1:]]),
        ])
    json.dump(summary, open(os.path.join(exp, "crawl.wacz.json"), "w"), indent=2)
    open(os.path.join(exp, "crawl.wacz.json"), "a").write("\n")


# ---------------------------------------------------------------- check


def cmd_check(args):
    out = args.out
    exp = os.path.join(out, "expected")
    problems = []
    for name in WARCS:
        path = os.path.join(out, name)
        rows = [json.loads(l) for l in open(os.path.join(exp, name + ".jsonl"))]
        has_error = os.path.exists(os.path.join(exp, name + ".error.json"))
        data = open(path, "rb").read()
        # 1. each record parses alone from its offset (with its length for gz members)
        for row in rows:
            chunk = data[row["offset"]:row["offset"] + row["length"]] if name.endswith(".gz") \
                else data[row["offset"]:]
            recs = ArchiveIterator(io.BytesIO(chunk))
            try:
                r = next(iter(recs))
                r.content_stream().read()
                if (r.rec_type, r.rec_headers.get_header("WARC-Target-URI")) != (row["type"], row["url"]):
                    problems.append("%s@%d: found %s %s" % (name, row["offset"], r.rec_type,
                                                            r.rec_headers.get_header("WARC-Target-URI")))
            except Exception as e:  # noqa: BLE001
                problems.append("%s@%d: %s" % (name, row["offset"], e))
        # 2. the same offsets/lengths as the `warcio index` command line
        if not has_error:
            cli = subprocess.run([os.path.join(os.path.dirname(sys.executable), "warcio"), "index",
                                  "-f", "warc-type,warc-target-uri,offset,length,http:status,warc-refers-to-target-uri",
                                  path], capture_output=True, text=True, check=True).stdout
            cli_rows = [json.loads(l) for l in cli.splitlines()]
            mine = [(r["type"], r["url"], r["offset"], r["length"], r["status"], r["refers_to"]) for r in rows]
            theirs = [(c.get("warc-type"), c.get("warc-target-uri"), int(c["offset"]), int(c["length"]),
                       int(c["http:status"]) if "http:status" in c else None,
                       c.get("warc-refers-to-target-uri")) for c in cli_rows]
            if mine != theirs:
                problems.append("%s: differs from `warcio index`" % name)
        # 3. gzip members: each record is one member, and the whole file is valid gzip
        if name.endswith(".gz") and not name.startswith("truncated"):
            try:
                gzip.decompress(data)
            except Exception as e:  # noqa: BLE001
                problems.append("%s: not valid gzip: %s" % (name, e))
    # 4. full digest check of the good files
    for name in WARCS[:5]:
        with open(os.path.join(out, name), "rb") as fh:
            it = ArchiveIterator(fh, check_digests="raise")
            for r in it:
                r.content_stream().read()
    # 5. the WACZ
    with zipfile.ZipFile(os.path.join(out, "crawl.wacz")) as z:
        if z.testzip() is not None:
            problems.append("crawl.wacz: bad zip member")
        if z.read("archive/wget.warc.gz") != open(os.path.join(out, "wget.warc.gz"), "rb").read():
            problems.append("crawl.wacz: archive/wget.warc.gz differs from wget.warc.gz")
        dp = json.loads(z.read("datapackage.json"))
        for res in dp["resources"]:
            h = "sha256:" + hashlib.sha256(z.read(res["path"])).hexdigest()
            if h != res["hash"]:
                problems.append("crawl.wacz: hash of %s differs from datapackage.json" % res["path"])
    # 6. pages files
    good = [json.loads(l) for l in open(os.path.join(out, "pages.jsonl"), encoding="utf-8")]
    assert [p["url"] for p in good] == [BASE + "/article.html", BASE + "/article-copy.html", BASE + "/other.html"]
    bad_lines = open(os.path.join(out, "pages-bad.jsonl"), encoding="utf-8").read().splitlines()
    failing = []
    for i, l in enumerate(bad_lines, 1):
        try:
            json.loads(l)
        except ValueError:
            failing.append(i)
    if failing != [3]:
        problems.append("pages-bad.jsonl: bad lines %r, want [3]" % failing)
    if problems:
        print("\n".join(problems))
        raise SystemExit(1)
    print("check: all fixtures agree with expected/")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("warcio")
    p.add_argument("--port", type=int, required=True)
    for name in ["pages", "break", "expected", "check"]:
        sub.add_parser(name)
    for p in sub.choices.values():
        p.add_argument("--out", default=HERE)
    args = ap.parse_args()
    {"warcio": cmd_warcio, "pages": cmd_pages, "break": cmd_break,
     "expected": cmd_expected, "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    main()
