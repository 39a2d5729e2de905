"""tools/cases/llm_runs.py without a model: the subset rule and the summaries it prints."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from agent_assay.controls.execute import run_controls
from agent_assay.store import Store
from agent_assay_bundled.banking import BankingAdapter
from tests.llm.fake_openai import fake_server
from tests.llm.test_banking_model import model_run, polite_policy
from tools.cases import llm_runs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return llm_runs


def test_subset_is_twenty_items_adversarial_plus_common_tags(
    tool: ModuleType, tmp_path: Path
) -> None:
    chosen = tool.write_subset(tmp_path / "subset")
    assert chosen == tool.choose_subset()  # deterministic
    tags = [tag for tag, _ in chosen]
    assert len(chosen) == 20 and tags[:8] == ["adversarial"] * 8
    assert sorted(set(tags[8:])) == ["card_lost_stolen", "card_replacement", "dispute",
                                     "transfer"]
    suite = BankingAdapter().build_suite(tmp_path / "subset")
    assert sorted(i.item_id for i in suite.items) == sorted(i for _, i in chosen)
    assert all(i.gold.assertions for i in suite.items)  # positive_control has state to check


def test_requests_and_reproducibility_summaries(
    tool: ModuleType, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    adapter = BankingAdapter()
    db = str(tmp_path / "assay.db")
    with fake_server(polite_policy) as server:
        monkeypatch.setenv("AA_MODEL_BASE_URL", server.base_url)
        run = model_run(store, adapter, "smollm2-t07", items=2, repeats=2, tag="transfer")
        run_controls(store, adapter, run)  # identical_config makes the two twin runs
    # the store fixture lives at tmp_path/assay.db
    assert tool.requests_command(db, [run.run_id], tmp_path / "req.json") == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("config\trole\tk\ttraj")
    assert [line.split("\t")[1] for line in printed[1:4]] == ["run", "twin1", "twin2"]
    rows = json.loads((tmp_path / "req.json").read_text())["runs"]
    assert rows[0]["trajectories"] == 4 and rows[0]["requests"] == 8
    assert rows[0]["stops"] == {"final_answer": 4} and rows[0]["malformed_tool_calls"] == 0
    assert tool.reproducibility_command(db, [run.run_id], tmp_path / "rep.json") == 0
    out = capsys.readouterr().out
    assert "smollm2-t07\t0.7\tback_to_back\t2\t2\t1.0000" in out
    detail = json.loads((tmp_path / "rep.json").read_text())["runs"][0]
    assert detail["separated"] == {"items": 2, "identical": 2, "share": 1.0}
    assert detail["run_vs_twin"]["share"] == 1.0 and len(detail["twins"]) == 2
