"""`make bench-inspect-import`: importing a 5,000-sample Inspect log, timed.

    python -m tools.bench.inspect_import [--samples 2500] [--epochs 2]
        [--out reports/bench/inspect_import.json]

The log is generated here (never committed): SAMPLES dataset samples x EPOCHS epochs,
each one tool call answered and a final answer, scored by `includes` with C or I, usage
recorded, built as Inspect's own `EvalLog` and written by `write_eval_log`. The import
runs in a fresh child process through the importer plugin's own `parse` and `store` (the
entry point is not needed), into a new SQLite store: its wall time per phase, CPU
seconds (user + system) and peak RSS, read by the child itself with `resource`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tools.bench.output import child_figures, machine, write_figures

ROOT = Path(__file__).resolve().parents[2]

IMPORT = '''
import json, resource, sys, time
from pathlib import Path
from agent_assay.store import open_store
from agent_assay_bundled.inspect_log.importer import InspectLogImporter

log, db = Path(sys.argv[1]), sys.argv[2]
importer = InspectLogImporter()
start = time.perf_counter()
parsed = importer.parse(log)
parsed_at = time.perf_counter()
report = importer.store(open_store(db), parsed, name="bench")
stored_at = time.perf_counter()
use = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"parse_s": parsed_at - start, "store_s": stored_at - parsed_at,
                  "wall_s": stored_at - start, "cpu_s": use.ru_utime + use.ru_stime,
                  "peak_rss_mb": use.ru_maxrss / 1024, "runs": len(report.run_id.split())}))
'''


def generate(path: Path, samples: int, epochs: int) -> int:
    """Write the log; the number of sample records (samples x epochs) it holds."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalSample,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageTool,
        ChatMessageUser,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.scorer import Score
    from inspect_ai.tool import ToolCall

    records = []
    for i in range(samples):
        for epoch in range(1, epochs + 1):
            right = (i + epoch) % 3 != 0
            answer = f"it is code-{i}x" if right else "no idea"
            call = ToolCall(id=f"c{i}-{epoch}", function="lookup", arguments={"id": f"A{i}"})
            records.append(EvalSample(
                id=f"s{i}", epoch=epoch, input=f"[s{i}] what is the code of A{i}?",
                target=f"code-{i}x",
                messages=[ChatMessageUser(content=f"[s{i}] what is the code of A{i}?"),
                          ChatMessageAssistant(content="", tool_calls=[call]),
                          ChatMessageTool(content=f"code of A{i}", tool_call_id=call.id,
                                          function="lookup"),
                          ChatMessageAssistant(content=answer)],
                output=ModelOutput.from_content("mockllm/model", answer),
                scores={"includes": Score(value="C" if right else "I", answer=answer)},
                model_usage={"mockllm/model": ModelUsage(input_tokens=6, output_tokens=4,
                                                         total_tokens=10)}))
    spec = EvalSpec(created="2026-01-01T00:00:00+00:00", task="bench_codes",
                    dataset=EvalDataset(name="bench", samples=samples,
                                        sample_ids=[f"s{i}" for i in range(samples)]),
                    model="mockllm/model", config=EvalConfig(epochs=epochs))
    write_eval_log(EvalLog(eval=spec, status="success", samples=records), str(path))
    return len(records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2500)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "reports/bench/inspect_import.json")
    args = parser.parse_args()
    try:
        import inspect_ai
    except ImportError:
        print("bench-inspect-import skipped: inspect_ai is not installed in this venv")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "bench.eval"
        began = time.perf_counter()
        records = generate(log, args.samples, args.epochs)
        generated_s = time.perf_counter() - began
        size_mb = log.stat().st_size / 2**20
        got = child_figures([sys.executable, "-c", IMPORT, str(log), str(Path(tmp) / "a.db")],
                            "bench-inspect-import: the import")
    write_figures(args.out, {
        "command": "make bench-inspect-import",
        "machine": machine(),
        "inspect_ai_version": inspect_ai.__version__,
        "log": {"samples": args.samples, "epochs": args.epochs, "sample_records": records,
                "size_mb": round(size_mb, 2), "generated_s": round(generated_s, 2)},
        "import": {key: round(value, 3) for key, value in got.items()},
        "ms_per_sample_record": round(got["wall_s"] * 1000 / records, 3),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
