"""Extraction of the parts of a response that rule checkers read (pure parts).

Each item names extraction instructions in `corresponding_parts`; the marker at the start of
an instruction selects the path:

* ``#CODE#`` — code-guided: the extractor model writes ``extract_info_list(model_response)``,
  which runs in `proseval.sandbox` on the response;
* ``#JSONSCHEMA#:<key>`` — the value of `<key>` in the JSON of the response;
* ``#LISTSCHEMA#`` — a list literal in the response;
* no marker — the extractor model answers with a Python list literal of the parts.

This module builds the extractor prompts (proseval's own wording, with the official
placeholders, so that `--prompt extractor_code=FILE` etc. can send the official text), pulls the code
out of the extractor's answer and parses list answers. It never evaluates model text: list
answers go through `ast.literal_eval` or `json_repair`. `compat="head"` reproduces the
official reference commit's behaviour where it differs (see the deviations in the docs).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import json_repair

from proseval.kit import PromptTemplate
from proseval.kit.sandbox import SandboxResult

Compat = Literal["fixed", "head"]
PartKind = Literal["code", "json", "list", "llm"]
FailureKind = Literal[
    "no_code",
    "timeout",
    "memory",
    "forbidden",
    "exception",
    "bad_result",
    "crash",
    "unparseable",
    "invalid_json",
    "invalid_list",
]

CODE_MARKER = "#CODE#"
JSON_MARKER = "#JSONSCHEMA#"
LIST_MARKER = "#LISTSCHEMA#"
CODE_FUNCTION = "extract_info_list"
WHOLE_RESPONSE = "ALL"
EXTRACTION_FAILED = "extraction failed"
# The official code executes generated code with separate globals and locals, which hides
# helper functions from the called function; proseval runs it as one module namespace.
SPLIT_NAMESPACE: dict[Compat, bool] = {"fixed": False, "head": True}


@dataclass(frozen=True)
class Part:
    """One `corresponding_parts` instruction, classified."""

    kind: PartKind
    instruction: str
    json_key: str | None = None


def classify_part(instruction: str) -> Part:
    """Read the path marker at the start of an extraction instruction."""
    if instruction.startswith(CODE_MARKER):
        return Part("code", instruction[len(CODE_MARKER) :])
    if instruction.startswith(JSON_MARKER):
        key = instruction.partition(":")[2]
        return Part("json", instruction[len(JSON_MARKER) :], json_key=key)
    if instruction.startswith(LIST_MARKER):
        return Part("list", instruction[len(LIST_MARKER) :])
    return Part("llm", instruction)


@dataclass(frozen=True)
class Extraction:
    """Extracted parts, or the kind of failure and a short detail."""

    items: list[str] | None
    failure: FailureKind | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.failure is None


def _failed(kind: FailureKind, detail: str) -> Extraction:
    return Extraction(None, kind, detail)


_CODE_PROMPT_MULTI = PromptTemplate(
    "extractor_code",
    """\
You write Python code that extracts parts of a model's answer.

The answer was given in reply to a writing task. Its line breaks have been removed below; \
your code will receive the original answer with its line breaks.

Answer:
<<<
{model_response}
>>>

What to extract:
{instruction}

Write a function `extract_info_list(model_response)` that returns a list of strings, one per \
extracted unit, in the order they appear. Guidelines:
1. Remove any introduction before the first unit and any closing remarks after the last one \
(use re.sub with a pattern anchored on text that really occurs in the answer).
2. Remove explanations or notes placed between units (str.replace with the exact text).
3. Split the remaining text into units with re.findall; keep each unit's text exactly as \
written, including a leading list number such as "1. " when the answer has one.
The module `re` is already imported; you may also import json, math, string, itertools, \
collections, functools, unicodedata, textwrap or typing, nothing else. Do not read files, \
print or use the network.

Reply with the function only, in one ```python code block.
""",
    ("model_response", "instruction"),
    description="asks the extractor for extract_info_list code (items with several parts)",
)

_CODE_PROMPT_SINGLE = PromptTemplate(
    "extractor_code_single",
    """\
You write Python code that extracts one part of a model's answer.

The answer was given in reply to a writing task. Its line breaks have been removed below; \
your code will receive the original answer with its line breaks.

Answer:
<<<
{model_response}
>>>

What to extract:
{instruction}

Write a function `extract_info_list(model_response)` that removes everything that is not the \
requested text (introductions, closing remarks, notes about the answer) and returns \
`[cleaned_text]`, a list with that text as its only element, otherwise unchanged. The module \
`re` is already imported; you may also import json, math, string, itertools, collections, \
functools, unicodedata, textwrap or typing, nothing else. Do not read files, print or use the \
network.

Reply with the function only, in one ```python code block.
""",
    ("model_response", "instruction"),
    description="the same for a single part (category *single*)",
)

_LLM_PROMPT_MULTI = PromptTemplate(
    "extractor_list",
    """\
You extract parts of a model's answer, word for word.

The task the model was given:
<<<
{input_instruction}
>>>

The model's answer:
<<<
{model_response}
>>>

What to extract:
{extraction_prompt}

Copy every requested part exactly as it appears in the answer (do not correct, translate, \
merge or summarise anything), in order. Reply with a Python list of strings and nothing \
else, for example ["first part", "second part"]. Reply [] if the answer contains none.
""",
    ("input_instruction", "model_response", "extraction_prompt"),
    description="asks the extractor for the parts as a list of strings",
)

_LLM_PROMPT_SINGLE = PromptTemplate(
    "extractor_list_single",
    """\
You extract one part of a model's answer, word for word.

The task the model was given:
<<<
{input_instruction}
>>>

The model's answer:
<<<
{model_response}
>>>

What to extract:
{extraction_prompt}

Copy the requested part exactly as it appears in the answer (do not correct, translate or \
summarise it). Reply with a Python list holding it as one string and nothing else, for \
example ["the text"]. If the requested part is the entire answer, reply with the single \
word ALL instead.
""",
    ("input_instruction", "model_response", "extraction_prompt"),
    description="the same for a single part (may answer ALL)",
)


EXTRACTOR_PROMPTS = {
    t.name: t for t in (_CODE_PROMPT_MULTI, _CODE_PROMPT_SINGLE, _LLM_PROMPT_MULTI, _LLM_PROMPT_SINGLE)
}


def code_extraction_prompt(
    response: str, instruction: str, *, single: bool, prompts: Mapping[str, PromptTemplate] = EXTRACTOR_PROMPTS
) -> str:
    """Prompt asking the extractor to write `extract_info_list`.

    The response is shown with its newlines removed (as the official pipeline does) while
    the code later runs on the original.
    """
    chosen = prompts["extractor_code_single" if single else "extractor_code"]
    return chosen.render(model_response=response.replace("\n", ""), instruction=instruction)


def llm_extraction_prompt(
    question: str,
    response: str,
    instruction: str,
    *,
    single: bool,
    prompts: Mapping[str, PromptTemplate] = EXTRACTOR_PROMPTS,
) -> str:
    """Prompt asking the extractor for a Python list of the parts."""
    chosen = prompts["extractor_list_single" if single else "extractor_list"]
    return chosen.render(input_instruction=question, model_response=response, extraction_prompt=instruction)


_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_PYTHON_FENCE = re.compile(r"```python\s*\n(.*?)```", re.DOTALL)


def code_from_answer(answer: str, *, compat: Compat = "fixed") -> str | None:
    """The code of the extractor's answer, or None if it holds no `extract_info_list`.

    fixed: the first fenced block (any language tag, closing fence optional) that defines the
    function, else the unfenced answer if it defines it. head: only a ```python block is
    unwrapped, anything else is passed on as it is (and then usually fails to compile).
    """
    if compat == "head":
        match = _PYTHON_FENCE.search(answer)
        return match.group(1) if match else answer
    definition = re.compile(rf"^\s*def\s+{CODE_FUNCTION}\s*\(", re.MULTILINE)
    for block in _FENCE.findall(answer):
        if definition.search(block):
            return block
    if "```" not in answer and definition.search(answer):
        return answer
    return None


def extraction_from_sandbox(result: SandboxResult, *, compat: Compat = "fixed") -> Extraction:
    """Turn a sandbox run of `extract_info_list` into an extraction.

    A bare string result becomes a one-element list (fixed) or, as in the official code where
    checkers iterate it, a list of its characters (head).
    """
    if not result.ok:
        return _failed(result.error_kind or "crash", result.error or "")
    if isinstance(result.value, str):
        items = list(result.value) if compat == "head" else [result.value]
        return Extraction(items)
    return Extraction(list(result.value or []))


def _strip_fence(text: str) -> str:
    match = re.fullmatch(r"```[^\n]*\n(.*?)\n?```", text.strip(), re.DOTALL)
    return match.group(1).strip() if match else text.strip()


def _is_whole_response(text: str) -> bool:
    """`ALL`, bare or quoted, in any case, as the whole answer."""
    return text.strip().strip("\"'`").strip().upper() == WHOLE_RESPONSE


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _list_items(value: Any) -> list[str] | None:
    """Elements as text (numbers and booleans converted); None if an element is not a scalar."""
    items = []
    for element in value:
        if isinstance(element, str):
            items.append(element)
        elif isinstance(element, (bool, int, float)):
            items.append(str(element))
        else:
            return None
    return items


def parse_list_answer(answer: str, response: str, *, compat: Compat = "fixed") -> Extraction:
    """Parse the LLM extractor's answer into parts.

    fixed: ``ALL`` (bare or quoted, any case, the whole answer) stands for the full response;
    otherwise the answer (unwrapped from a code fence) is read as a Python literal, then the
    span from the first ``[`` to the last ``]``, then with json_repair. A list of scalars or a
    single string is accepted; anything else is a failure.
    head: json_repair only, exactly as the official code: a quoted "ALL" is the response, a
    bare ALL parses to an empty string (so the checkers see nothing), other strings are seen
    character by character and objects by their keys.
    """
    if compat == "head":
        return _parse_list_answer_head(answer, response)
    text = _strip_fence(answer)
    if _is_whole_response(text):
        return Extraction([response])
    value = _literal(text)
    if value is None and "[" in text and "]" in text:
        value = _literal(text[text.index("[") : text.rindex("]") + 1])
    if value is None:
        repaired = json_repair.loads(text)
        value = repaired if repaired != "" else None
    if isinstance(value, str):
        return Extraction([response] if _is_whole_response(value) else [value])
    if isinstance(value, (list, tuple)):
        items = _list_items(value)
        if items is not None:
            return Extraction(items)
    return _failed("unparseable", f"extractor answer is not a list of strings: {answer[:200]!r}")


def _parse_list_answer_head(answer: str, response: str) -> Extraction:
    value = json_repair.loads(json_repair.repair_json(answer))
    if value == WHOLE_RESPONSE:
        return Extraction([response])
    if isinstance(value, str):
        return Extraction(list(value))
    if isinstance(value, dict):
        return Extraction([str(key) for key in value])
    if isinstance(value, list):
        return Extraction([str(element) for element in value])
    return _failed("unparseable", f"extractor answer is not iterable: {answer[:200]!r}")


def _json_candidates(response: str) -> list[str]:
    json_blocks = re.findall(r"```json\s*\n(.*?)```", response, re.DOTALL)
    any_blocks = re.findall(r"```[^\n]*\n(.*?)```", response, re.DOTALL)
    return (json_blocks[:1] or any_blocks[:1]) + [response]


def json_field(response: str, key: str) -> Extraction:
    """The `#JSONSCHEMA#` path: ``[str(value)]`` of `key` in the response's JSON.

    The JSON is the first ```json block, else the first fenced block, else the whole text; a
    list yields the key of its first element.
    """
    for candidate in _json_candidates(response):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, list) and data:
            data = data[0]
        if isinstance(data, dict) and key in data:
            return Extraction([str(data[key])])
        break
    return _failed("invalid_json", f"no JSON value for key {key!r} in the response")


def list_from_response(response: str, *, compat: Compat = "fixed") -> Extraction:
    """The `#LISTSCHEMA#` path (unused by the data): a list literal in the response.

    head: always a failure, as in the official code.
    """
    if compat == "head":
        return _failed("invalid_list", "list-schema extraction is not functional officially")
    parsed = parse_list_answer(response, response)
    return parsed if parsed.ok else _failed("invalid_list", parsed.detail)


# What the official code passes to checkers instead of a list when these paths fail.
_HEAD_SENTINELS: dict[FailureKind, str] = {
    "invalid_json": "INVALID JSON",
    "invalid_list": "INVALID LIST",
}


def checker_input(extraction: Extraction, *, compat: Compat = "fixed") -> list[str] | None:
    """The list a rule checker receives, or None when the check must fail as "extraction failed".

    head: the JSON and list paths' failure sentinels reach the checkers as text (iterated
    character by character), as in the official code; only code and LLM failures short-circuit.
    """
    if extraction.ok:
        return extraction.items
    sentinel = _HEAD_SENTINELS.get(extraction.failure) if extraction.failure else None
    if compat == "head" and sentinel:
        return list(sentinel)
    return None
