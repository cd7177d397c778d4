"""State-machine simulation (SMS): run a Mealy machine over an input string, step by step.

The machine is the official one: states S0..S(n-1), inputs and outputs '0'..; from state Si on
input x it moves to S((i+x) mod n_states) and emits (i+x) mod n_outputs. The input string is
drawn from the sample's primary stream with the official call (``choices`` over the input
symbols), so with ``seed=0`` it equals the official string. The worked example in the prompt
uses its own stream instead of the first symbols of the real input (documented deviation);
with ``leaky_example`` it is the official one: the first symbols of the real input, so the
prompt shows the first answer rows.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import long_output_note
from ._rng import stream_rng

HEADER = "Current State | Input | Next State | Output Signal"


def transition_table(num_states: int, input_size: int, output_size: int) -> list[list[str]]:
    """Rows ``[state, input, next_state, output]`` of the official machine."""
    return [
        [f"S{i}", str(x), f"S{(i + x) % num_states}", str((i + x) % output_size)]
        for i in range(num_states)
        for x in range(input_size)
    ]


def simulate(table: list[list[str]], start: str, inputs: str) -> list[list[str]]:
    """The trace: one ``[state, input, next_state, output]`` row per input symbol."""
    step = {(row[0], row[1]): (row[2], row[3]) for row in table}
    trace, state = [], start
    for symbol in inputs:
        nxt, out = step[(state, symbol)]
        trace.append([state, symbol, nxt, out])
        state = nxt
    return trace


def _render(rows: list[list[str]]) -> str:
    return "\n".join(" | ".join(row) for row in rows)


def build(
    rng: random.Random, key: str, length: str, p: dict[str, Any], *, leaky_example: bool = False
) -> tuple[str, dict]:
    """Prompt and target of one SMS instance."""
    table = transition_table(p["num_states"], p["input_size"], p["output_size"])
    symbols = [str(x) for x in range(p["input_size"])]
    inputs = "".join(rng.choices(symbols, k=p["input_length"]))
    if leaky_example:
        example = inputs[: p["example_length"]]
    else:
        example = "".join(stream_rng(key, "sms-example").choices(symbols, k=p["example_length"]))
    trace = simulate(table, "S0", inputs)
    states = ", ".join(f"S{i}" for i in range(p["num_states"]))
    dashes = "-" * len(HEADER)
    prompt = f"""Simulate the finite-state machine below on the given input string and \
write down every step.

Machine:
- States: {states}. The machine starts in S0.
- Input symbols: {", ".join(symbols)}. Output symbols: \
{", ".join(str(x) for x in range(p["output_size"]))}.
- Transitions (each input moves the machine to the next state and emits one output):
{HEADER}
{_render(table)}

Input string ({len(inputs)} symbols):
{inputs}

Worked example for the short input "{example}" (an illustration only, not part of your \
answer):
{HEADER}
{dashes}
{_render(simulate(table, "S0", example))}

Your answer: the header line `{HEADER}`, then a line of dashes, then exactly {len(inputs)} \
rows, one per input symbol in order, each written `state | input | next state | output`.
{long_output_note(length)}
No code, no explanation, no skipped or merged steps."""
    target = {
        "input_string": inputs,
        "initial_state": "S0",
        "num_states": p["num_states"],
        "input_size": p["input_size"],
        "output_size": p["output_size"],
        "transitions": table,
        "expected_states": [row[2] for row in trace],
        "expected_outputs": "".join(row[3] for row in trace),
        "example_input": example,
    }
    return prompt, target
