// The docs index in Pyodide under Node: what the worker pays to load it and to search it.
//
//   python3 bench/index_pyodide.py  (writes the index and questions, then runs this)
//   node bench/index_pyodide.mjs INDEX.json QUESTIONS.json [RUNS]
//
// Loads the panel's core (docs_panel/core) into Pyodide's file system, then times, RUNS
// times each: json.loads of index.json's text plus load_index (the worker's start),
// and every question's search. Prints one JSON line of figures (medians over runs;
// search_best_*: over each question's fastest run). A question given as
// [text, vector] (an index with section vectors) is also searched with its vector
// right after, as the worker does once the vector parts are in: fuse_* time that
// second search, what meaning adds to the words' ranking.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide } from "../node_modules/pyodide/pyodide.mjs";

const [indexPath, questionsPath, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const py = await loadPyodide();
py.FS.mkdirTree("/app/docs_panel");
py.FS.writeFile("/app/docs_panel/__init__.py", "");
// The index reads the core and the portable modules the core imports (its errors).
for (const room of ["core", "portable"]) {
  py.FS.mkdirTree(`/app/docs_panel/${room}`);
  for (const name of readdirSync(join(root, "docs_panel", room))) {
    if (name.endsWith(".py")) {
      const source = readFileSync(join(root, "docs_panel", room, name));
      py.FS.writeFile(`/app/docs_panel/${room}/${name}`, source);
    }
  }
}
py.globals.set("index_text", readFileSync(indexPath, "utf8"));
py.globals.set("questions_json", readFileSync(questionsPath, "utf8"));
py.globals.set("runs", runs);
const figures = py.runPython(`
import sys, json, time, statistics
sys.path.insert(0, "/app")
from docs_panel.core.docs_index import load_index
questions = json.loads(questions_json)
loads, latencies, fusing = [], [], []
for _ in range(runs):
    start = time.perf_counter()
    index = load_index(json.loads(index_text))
    loads.append(time.perf_counter() - start)
    for question in questions:
        text, vector = question if isinstance(question, list) else (question, None)
        start = time.perf_counter()
        index.search(text, limit=8)
        latencies.append(time.perf_counter() - start)
        if vector is not None:
            start = time.perf_counter()
            index.search(text, limit=8, question_vector=vector)
            fusing.append(time.perf_counter() - start)
# Each question's fastest run: what a search costs when nothing else competes
# for the CPU (on a busy machine, the plain p95 mostly measures the others).
best = [min(latencies[i::len(questions)]) for i in range(len(questions))]
json.dumps({
    "load_ms": statistics.median(loads) * 1000,
    "load_min_ms": min(loads) * 1000,
    "search_p50_ms": statistics.median(latencies) * 1000,
    "search_p95_ms": statistics.quantiles(latencies, n=20)[-1] * 1000,
    "search_best_p50_ms": statistics.median(best) * 1000,
    "search_best_p95_ms": statistics.quantiles(best, n=20)[-1] * 1000,
    "searches": len(latencies),
    **({
        "fuse_p50_ms": statistics.median(fusing) * 1000,
        "fuse_p95_ms": statistics.quantiles(fusing, n=20)[-1] * 1000,
    } if fusing else {}),
})
`);
console.log(figures);
