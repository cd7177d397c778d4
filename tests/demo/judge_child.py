"""Child process of the demo judge test: the embedded model judges with the demo's own request.

Run by tests/demo/test_judge_format.py through `proseval.models.local_probe.run_child`, so a
native crash fails that test instead of killing pytest. Prints the judge's replies as one JSON line.
"""

from __future__ import annotations

import asyncio
import json

from proseval.benchmarks.demo.task import JUDGE_FORMAT, TEMPLATES, dataset, make_task
from proseval.models.local import LocalModel

MAX_TOKENS = 32

# Two answers a candidate might give: one on topic, and a poor one (the judge's reason for it runs on
# to `max_tokens`).
ANSWERS = {
    "demo/email-delay": "Dear customer, a storm has delayed our deliveries, so your order will arrive three days "
    "later than planned. We are sorry. Please use the code SORRY10 for 10% off your next order.",
    "demo/poem-autumn": "cold cold cold. the the morning. autumn is a month.",
}


async def replies() -> dict:
    model = LocalModel("smollm2-135m", n_ctx=2048)
    # The demo judge's own request, with fewer tokens than its 200: the shape is set by the first few, and a
    # reason that runs on is cut as it would be at 200 (the score, first, is whole either way).
    config = make_task().role_configs["judge"].merged(JUDGE_FORMAT).merged({"max_tokens": MAX_TOKENS})
    samples = {sample.id: sample for sample in dataset()}
    texts = {}
    for sample_id, answer in ANSWERS.items():
        prompt = TEMPLATES["judge"].render(request=samples[sample_id].input, response=answer)
        completion = await model.generate([{"role": "user", "content": prompt}], config)
        texts[sample_id] = completion.text
    return {"ok": True, "replies": texts}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(replies())))
