"""`python -m tests.support.concurrent_writer DB N`: write N toy runs into DB, print each id."""

from __future__ import annotations

import sys

from agent_assay.store import open_store
from tests.support.toy import ToyAdapter
from tests.support.toyrun import toy_run


def main(db: str, n: int) -> None:
    store = open_store(db)
    toy = ToyAdapter()
    for i in range(n):
        run = toy_run(store, toy, "noisy", repeats=2, seed=i)
        print(run.run_id, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
