"""DuConv knowledge graph: goal generation over a 100k-triple graph (target: p95 under 20 ms) and
the import of a 1M-triple TSV (time and peak memory).

    .venv/bin/python bench/duconv_graph.py [--goal-triples 100000] [--goals 300] [--import-triples 1000000]

The graphs are synthetic film graphs (Chinese film titles, English people): films with a director,
two stars, year, genre, award, running time and rating; people with occupation, birth date, city,
nationality and a film they are known for — so topics link through "directed by", "starring",
"known for" and shared values, as DuConv's do. Each run uses a throwaway SQLite database unless
DATABASE_URL is set. The import runs as `manage.py import_knowledge triples` in a child process,
whose peak resident memory is reported.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENRES = ["剧情", "喜剧", "动作", "爱情", "科幻", "动画", "悬疑", "惊悚", "恐怖", "犯罪", "战争", "历史", "音乐", "家庭", "冒险", "奇幻"]
CITIES = [f"City {i}" for i in range(200)]
NATIONS = [f"Nation {i}" for i in range(50)]
AWARDS = [f"金鸡奖 第{i}届 最佳影片" for i in range(40)]


def write_graph(path: Path, triples: int, seed: int = 0) -> int:
    rng = random.Random(seed)
    entities = max(4, triples // 8)
    films, people = entities // 2, entities - entities // 2
    written = 0
    with path.open("w", encoding="utf-8") as out:
        for f in range(films):
            title = f"电影 {f}"
            rows = [("directed by", f"Person {rng.randrange(people)}"), ("starring", f"Person {rng.randrange(people)}"),
                    ("starring", f"Person {rng.randrange(people)}"), ("release year", str(rng.randint(1950, 2020))),
                    ("genre", rng.choice(GENRES)), ("award", rng.choice(AWARDS)), ("running time", f"{rng.randint(80, 180)} 分钟"),
                    ("rating", f"{rng.randint(50, 95) / 10}")]
            for p, v in rows:
                out.write(f"{title}\t{p}\t{v}\n")
                written += 1
        for p in range(people):
            name = f"Person {p}"
            rows = [("occupation", rng.choice(["director", "actor", "actress", "screenwriter"])),
                    ("born", f"{rng.randint(1930, 2000)} - {rng.randint(1, 12)} - {rng.randint(1, 28)}"),
                    ("birthplace", rng.choice(CITIES)), ("nationality", rng.choice(NATIONS)),
                    ("known for", f"电影 {rng.randrange(films)}"), ("height", f"{rng.randint(150, 200)} cm"),
                    ("constellation", rng.choice(["白羊座", "金牛座", "双子座", "巨蟹座"])), ("fans", f"{rng.randint(1, 999)} 万")]
            for prop, v in rows:
                out.write(f"{name}\t{prop}\t{v}\n")
                written += 1
    return written


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal-triples", type=int, default=100_000)
    parser.add_argument("--goals", type=int, default=300)
    parser.add_argument("--import-triples", type=int, default=1_000_000, help="0: skip the import figure")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    work = Path(tempfile.mkdtemp(prefix="gw-bench-duconv-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "groundwork.settings")
    os.environ.setdefault("GROUNDWORK_VAR_DIR", str(work))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from retrieval.graph.services import goal_generate
    from retrieval.models import KnowledgeSource

    graph = work / "goal-graph.tsv"
    written = write_graph(graph, args.goal_triples)
    call_command("import_knowledge", "triples", str(graph), source="bench-goals", verbosity=0)
    source = KnowledgeSource.objects.get(slug="bench-goals")
    rng = random.Random(1)
    goal_generate(source_id=source.pk, rng=rng)  # warm the connection and caches
    times, cpu_times, sizes = [], [], []
    for _ in range(args.goals):
        start, cpu_start = time.perf_counter(), time.process_time()
        goal = goal_generate(source_id=source.pk, rng=rng)
        times.append((time.perf_counter() - start) * 1000)
        cpu_times.append((time.process_time() - cpu_start) * 1000)
        sizes.append(len(goal.knowledge))
    print(f"goal generation over {source.triples.count():,} triples ({written:,} written), {args.goals} goals: "
          f"p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 95):.1f} ms, max {max(times):.1f} ms wall "
          f"(CPU time of this process: p50 {statistics.median(cpu_times):.1f} ms, p95 {percentile(cpu_times, 95):.1f} ms); "
          f"knowledge per goal {min(sizes)}–{max(sizes)} (mean {statistics.mean(sizes):.1f})")

    if args.import_triples:
        big = work / "import-graph.tsv"
        written = write_graph(big, args.import_triples, seed=2)
        size_mb = big.stat().st_size / 2**20
        command = [sys.executable, str(ROOT / "manage.py"), "import_knowledge", "triples", str(big), "--source", "bench-import", "--verbosity", "0"]
        start = time.perf_counter()
        subprocess.run(command, check=True, env=os.environ.copy(), stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak_mb, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
        # CPU time beside wall time: on a shared machine the wall time mostly measures the others.
        print(f"import of {written:,} triples ({size_mb:.0f} MB TSV): {elapsed:.1f} s wall, {cpu:.1f} s CPU "
              f"({written / elapsed:,.0f} triples/s wall), peak memory of the import process {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
