#!/usr/bin/env python3
"""NeMo Gym's own aggregate metrics for a stored rollout file: the reference gymnast's aggregation is
compared with (test/metrics/nemo-gym-aggregate.test.ts). A developer runs it; tests read what it wrote.

It runs NeMo Gym's `nemo_gym/reward_profile.py` unchanged (`compute_aggregate_metrics`,
`compute_pass_majority_metrics`, `highest_k_metrics`) on what NeMo Gym's collector sends an agent's
`/aggregate_metrics` after a run (`RolloutCollectionHelper._call_aggregate_metrics`): the results
sorted by (task, rollout), each without `response` (but its usage), `responses_create_params` and
the other heavy fields, grouped by the agent of its materialized input row. The server's hooks are
mcqa's `compute_metrics` (accuracy is the reward, answers from `extracted_answer`), with key metrics
NeMo Gym's default (every `mean/*`) plus `highest_k_metrics` of pass@k, pass@1[avg-of-k] and
majority@k: what gymnast's aggregate claims to be.

reward_profile.py imports key names, two pydantic models, W&B's Histogram and a CLI shim from
modules that pull in hydra, ray and wandb; those imports are stood in for below (names only, no
metric code), so it needs Python 3.11 with pandas 2.x, pydantic and orjson only.

    python3 scripts/nemo-gym-aggregates.py NEMO_GYM_DIR ROLLOUTS MATERIALIZED OUT_AGGREGATE [--drop T:R,...] [--request OUT_REQUEST]

NEMO_GYM_DIR holds NeMo Gym's `nemo_gym/reward_profile.py` (a checkout, or `git archive` of one).
OUT_AGGREGATE is written as NeMo Gym writes `<output>_aggregate_metrics.json` (orjson, indented by 2).
`--drop` leaves rollouts out, as a run whose rollouts failed persists only the others; `--request`
also writes the `/aggregate_metrics` body sent, and then OUT_AGGREGATE is the single agent's
`AggregateMetrics` answer, as the endpoint returns it.
"""

import argparse
import importlib.util
import json
import sys
import types
from pathlib import Path
from typing import Any, Dict, List

import orjson
from pydantic import BaseModel, Field

TASK, ROLLOUT, AGENT = "_ng_task_index", "_ng_rollout_index", "agent_ref"
# What NeMo Gym's collector leaves out of each result before /aggregate_metrics (response.usage is kept).
HEAVY = ("response", "responses_create_params", "ng_agent_observations", "ng_model_call_capture", "ng_trajectory")


def stand_in_imports() -> None:
    """The modules reward_profile.py imports for names only, without their heavy dependencies."""

    class AggregateMetrics(BaseModel):
        group_level_metrics: List[Dict[str, Any]] = Field(default_factory=list)
        agent_metrics: Dict[str, Any] = Field(default_factory=dict)
        key_metrics: Dict[str, Any] = Field(default_factory=dict)

    class Histogram:
        def __init__(self, data: Any) -> None:
            self.data = data

    modules = {
        "nemo_gym": {},
        "nemo_gym.config_types": {"AggregateMetrics": AggregateMetrics, "BaseNeMoGymCLIConfig": BaseModel},
        "nemo_gym.global_config": {"TASK_INDEX_KEY_NAME": TASK, "ROLLOUT_INDEX_KEY_NAME": ROLLOUT, "AGENT_REF_KEY_NAME": AGENT},
        "nemo_gym.cli": {},
        "nemo_gym.cli._compat": {"moved_attr_getter": lambda _module, _moved: None},
        "wandb": {"Histogram": Histogram},
    }
    for name, attributes in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(attributes)
        sys.modules[name] = module


def load_reward_profile(nemo_gym_dir: Path) -> types.ModuleType:
    stand_in_imports()
    spec = importlib.util.spec_from_file_location("nemo_gym.reward_profile", nemo_gym_dir / "nemo_gym" / "reward_profile.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["nemo_gym.reward_profile"] = module
    spec.loader.exec_module(module)
    return module


def read_jsonl(path: str) -> List[Dict[str, Any]]:
    with open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def stripped(result: Dict[str, Any]) -> Dict[str, Any]:
    entry = {k: v for k, v in result.items() if k not in HEAVY}
    usage = (result.get("response") or {}).get("usage")
    if usage:
        entry["response"] = {"usage": usage}
    return entry


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("nemo_gym_dir", type=Path)
    parser.add_argument("rollouts")
    parser.add_argument("materialized")
    parser.add_argument("out_aggregate")
    parser.add_argument("--drop", default="")
    parser.add_argument("--request")
    args = parser.parse_args()
    rp = load_reward_profile(args.nemo_gym_dir)

    def compute_metrics(tasks):
        return rp.compute_pass_majority_metrics(tasks, score_fn=lambda r: {"accuracy": r["reward"]}, answer_key="extracted_answer")[0]

    def get_key_metrics(agent_metrics):
        key = {k: v for k, v in agent_metrics.items() if k.startswith("mean/")}
        for family in ("pass@{k}", "pass@1[avg-of-{k}]", "majority@{k}"):
            key.update(rp.highest_k_metrics(agent_metrics, family))
        return key

    dropped = {tuple(int(i) for i in key.split(":")) for key in args.drop.split(",") if key}
    agents = {(row[TASK], row[ROLLOUT]): row[AGENT]["name"] for row in read_jsonl(args.materialized)}
    by_agent: Dict[str, List[Dict[str, Any]]] = {}
    for result in sorted(read_jsonl(args.rollouts), key=lambda r: (r[TASK], r[ROLLOUT])):
        if (result[TASK], result[ROLLOUT]) not in dropped:
            by_agent.setdefault(agents[(result[TASK], result[ROLLOUT])], []).append(stripped(result))

    if args.request and len(by_agent) != 1:
        sys.exit(f"--request writes one agent's request, and {args.rollouts} has {len(by_agent)} agents")
    answers = []
    for name, verify_responses in by_agent.items():
        metrics = rp.compute_aggregate_metrics(verify_responses, compute_metrics_fn=compute_metrics, get_key_metrics_fn=get_key_metrics)
        # Through JSON, as the agent server's answer reaches the collector.
        metrics = json.loads(metrics.model_dump_json())
        answers.append({AGENT: {"name": name}, "agent_metrics": metrics["agent_metrics"], "key_metrics": metrics["key_metrics"], "group_level_metrics": metrics["group_level_metrics"]})
        if args.request:
            Path(args.request).write_bytes(orjson.dumps({"verify_responses": verify_responses}, option=orjson.OPT_INDENT_2))
            Path(args.out_aggregate).write_bytes(orjson.dumps(metrics, option=orjson.OPT_INDENT_2))
    if not args.request:
        Path(args.out_aggregate).write_bytes(orjson.dumps(answers, option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
