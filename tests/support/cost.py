"""What the cost tests share: the prices of the fake server's two models and a set of two members on it."""

from __future__ import annotations

PRICES = """\
currency: USD
models:
  openai-compatible/cand: {input: 100, output: 400}
  openai-compatible/judge: {input: 200, output: 800, batch_discount: 0.5}
"""


def two_member_set(base_url: str, limit: int, more: str = "") -> str:
    """A set file: the demo task (`limit` samples) with the candidates `one` and `two` (another
    temperature) and the judge, all on the fake at `base_url`, one request and one run at a time;
    `more` keys appended."""
    return (
        f"""\
folder: out
models:
  - {{spec: openai-compatible/cand, name: one, base_url: {base_url}}}
  - {{spec: openai-compatible/cand, name: two, base_url: {base_url}, gen: {{temperature: 0.5}}}}
tasks:
  - task: demo
    limit: {limit}
roles: {{judge: openai-compatible/judge}}
role_base_url: {{judge: [{base_url}]}}
concurrency: 1
max_runs: 1
"""
        + more
    )
