"""A complete agent-assay adapter: eight lamps, three tools, a scripted agent (see README)."""

# The `--8<--` comments mark the sections docs/tutorial.md shows (a test keeps the page
# equal to them); they change nothing.
# --8<-- [start:world]
from agent_assay import (
    Cost,
    Ending,
    Facts,
    Gold,
    Item,
    StateAssertion,
    Step,
    Suite,
    ToolCall,
    ToolOutcome,
    ToolSpec,
    Trajectory,
)

LAMPS = [f"L{i}" for i in range(1, 9)]
LAMP = {"type": "object", "properties": {"lamp": {"type": "string"}}, "required": ["lamp"]}
TOOLS = [ToolSpec("look", "Is the lamp on?", LAMP), ToolSpec("switch_on", "Turn it on.", LAMP),
         ToolSpec("switch_off", "Turn it off.", LAMP)]


class Room:
    """One episode: the lamps as they start (every other one on), changed by calls."""

    def __init__(self) -> None:
        self.on, self.did = {lamp: i % 2 == 0 for i, lamp in enumerate(LAMPS)}, "nothing"

    def call(self, tool, args):
        lamp = args.get("lamp")
        if lamp not in self.on or tool not in ("look", "switch_on", "switch_off"):
            return ToolOutcome(False, error=f"no lamp {lamp!r} or no tool {tool!r}")
        if tool != "look":
            self.on[lamp], self.did = tool == "switch_on", "done"
        elif self.did == "nothing":
            self.did = "looked"
        return ToolOutcome(True, {"on": self.on[lamp]})

    def finish(self):
        return Ending({"lamps": dict(self.on)}, self.did)
# --8<-- [end:world]


# --8<-- [start:facts]
class LampSystem:
    name, version = "lamps", "0.1.0"
    facts = Facts(headline_metrics=("trajectory.exact", "outcome.match", "state.assertions"),
                  mutating_tools=("switch_on", "switch_off"), order_anchors={"*": "look"},
                  deterministic_configs=frozenset({"careful", "hasty"}))
    # --8<-- [end:facts]

    # --8<-- [start:suite]
    def build_suite(self, source=None):
        items = []
        for lamp in LAMPS:
            look = ToolCall("look", {"lamp": lamp})
            items.append(Item(f"look-{lamp}", {"request": f"look at {lamp}"},
                              Gold(path=(look,), outcome="looked"), tags=("look",)))
            for verb in ("on", "off"):
                gold = Gold(path=(look, ToolCall(f"switch_{verb}", {"lamp": lamp})), outcome="done",
                            assertions=(StateAssertion(f"lamps.{lamp}", verb == "on"),))
                items.append(Item(f"{verb}-{lamp}", {"request": f"switch {verb} {lamp}"}, gold,
                                  tags=(verb,)))
        return Suite(self.name, tuple(items))
    # --8<-- [end:suite]

    # --8<-- [start:agent]
    def configs(self):  # the careful agent looks before it switches; the hasty one does not
        return {"careful": {"looks_first": True}, "hasty": {"looks_first": False}}

    def run_item(self, item, config, *, seed, repetition):
        words, room, steps = item.input["request"].split(), Room(), []
        switch = [f"switch_{words[1]}"] if words[0] == "switch" else []
        look = ["look"] if config.params["looks_first"] or not switch else []
        for tool in (*look, *switch):
            call = ToolCall(tool, {"lamp": words[-1]})
            done = room.call(call.tool, call.args)
            steps.append(Step(call, done.ok, done.result, done.error))
        end = room.finish()
        return Trajectory(item.item_id, repetition, tuple(steps), end.final_state, end.outcome,
                          cost=Cost(0.0, "scripted agent"))
    # --8<-- [end:agent]

    # --8<-- [start:episodes]
    def open_episode(self, item, config, *, seed):
        return Room()

    def tools(self, item):
        return TOOLS

    def baseline_snapshot(self):
        return Room().finish().final_state

    def argument_pools(self):
        return {"lamp": LAMPS}
    # --8<-- [end:episodes]
