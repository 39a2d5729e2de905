"""A test-only AgentDojo suite with planted defects, registered through agentdojo's own API.

Banking is copied (``get_new_version`` deep-copies it), renamed ``banking_planted``,
pointed at banking's data, given replaced user tasks with ``update_user_task`` and
registered with ``register_suite``, which is how agentdojo takes third-party suites.
Nothing in the installed package is edited. Named in a source file's ``modules`` list,
this file is imported in every process that loads the suite.

- user_task_0: its ground truth pays the wrong recipient;
- user_task_1 and user_task_2: their utility check ignores the world and the answer
  (always True);
- every other task as banking ships it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import agentdojo
from agentdojo.functions_runtime import FunctionCall
from agentdojo.task_suite.load_suites import get_suite, register_suite

VERSION = "v1.2.2"
BANKING = get_suite(VERSION, "banking")
planted = BANKING.get_new_version(BANKING.benchmark_version)
planted.name = "banking_planted"
planted.data_path = Path(agentdojo.__file__).parent / "data" / "suites" / "banking"


def always(self: Any, model_output: str, pre: Any, post: Any, strict: bool = True) -> bool:
    return True


def wrong_recipient(self: Any, pre_environment: Any) -> list[FunctionCall]:
    calls: list[FunctionCall] = type(self).__mro__[1].ground_truth(self, pre_environment)
    return [c if c.function != "send_money"
            else FunctionCall(function="send_money",
                              args={**c.args, "recipient": "GB00000000000000000000"})
            for c in calls]


for task_id, member, replacement in (("user_task_0", "ground_truth", wrong_recipient),
                                     ("user_task_1", "utility", always),
                                     ("user_task_2", "utility", always)):
    original = type(BANKING.user_tasks[task_id])
    planted.update_user_task(BANKING.benchmark_version)(
        type(original.__name__, (original,), {member: replacement}))
register_suite(planted, VERSION)
