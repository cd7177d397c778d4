"""A test double of OpenAI's batch API, on top of the fake chat-completions server.

`FakeBatchServer` answers everything `FakeOpenAIServer` does (real-time `POST
/v1/chat/completions`, with the same responder) and the batch API the `openai` client uses:

- `POST /v1/files` (multipart, `purpose=batch`), `GET /v1/files/{id}`, `GET /v1/files/{id}/content`;
- `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches` (the list, newest first, with
  `limit` and `after`), `POST /v1/batches/{id}/cancel`.

A batch is answered when it is polled: it stays `in_progress` for `polls_to_complete` retrievals
(or while `hold` is set), then every line of its input file is answered by the responder into an
output file, and the lines `item_fault` marks go to an error file: ``"server_error"`` (a 500
response), ``"bad_request"`` (a 400), ``"expired"`` (not run: the whole batch ends `expired`,
its answered lines kept) or ``"missing"`` (in neither file). `fail_batches` ends every batch
`failed` (its input refused as a whole); `lose_create_answers` makes that many creates answer 500
after the batch was made (a lost answer). Counters: `creates`, `uploads`,
`polls`, `cancels`, `lists`, `submitted` (how often each custom id was in a created batch), and
`model_requests` (requests per model, in real time or in a created batch).
"""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .fake_openai import FakeOpenAIServer, _completion

# (the request body, how many created batches held this custom id before this one) -> a fault or None
ItemFault = Callable[[dict[str, Any], int], "str | None"]
TERMINAL = ("completed", "failed", "expired", "cancelled")


@dataclass
class FakeFile:
    id: str
    data: bytes
    purpose: str
    filename: str
    created_at: int

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.data),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


@dataclass
class FakeBatch:
    id: str
    input_file_id: str
    endpoint: str
    completion_window: str
    created_at: int
    status: str = "validating"
    polls: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    counts: dict[str, int] = field(default_factory=lambda: {"total": 0, "completed": 0, "failed": 0})
    errors: list[dict[str, Any]] | None = None
    metadata: dict[str, Any] | None = None

    def info(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": self.endpoint,
            "errors": None if not self.errors else {"object": "list", "data": self.errors},
            "input_file_id": self.input_file_id,
            "completion_window": self.completion_window,
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "request_counts": dict(self.counts),
            "metadata": self.metadata,
        }


class FakeBatchServer(FakeOpenAIServer):
    """The fake OpenAI-compatible server with the batch API (see the module's text)."""

    def __init__(self, *, polls_to_complete: int = 1, item_fault: ItemFault | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.polls_to_complete = polls_to_complete
        self.item_fault = item_fault
        self.hold = False  # while set, no batch ends
        self.fail_batches = False  # while set, a batch ends `failed` (its input refused as a whole)
        self.lose_create_answers = 0  # this many creates make the batch but answer 500 (the answer lost)
        self.files: dict[str, FakeFile] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.creates = 0
        self.uploads = 0
        self.polls = 0
        self.cancels = 0
        self.lists = 0
        self.submitted: Counter[str] = Counter()
        self._ids = itertools.count(1)

    # --- routing -------------------------------------------------------------------------------

    async def _respond(self, request_line: str, raw: bytes, writer: Any, headers: dict[str, str] | None = None) -> bool:
        method, target, _ = (request_line.split(" ") + ["", ""])[:3]
        url = urlsplit(target)
        parts = [p for p in url.path.split("/") if p]
        if parts[:1] == ["v1"]:
            parts = parts[1:]
        if parts[:1] not in (["files"], ["batches"]):
            return await super()._respond(request_line, raw, writer, headers)
        try:
            status, payload = self._route(method, parts, parse_qs(url.query), raw, headers or {})
        except KeyError as exc:
            status, payload = 404, {"error": {"message": f"no such object: {exc}", "type": "invalid_request_error"}}
        except ValueError as exc:
            status, payload = 400, {"error": {"message": str(exc), "type": "invalid_request_error"}}
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        await self._send(writer, status, body)
        return True

    def _route(
        self, method: str, parts: list[str], query: dict[str, list[str]], raw: bytes, headers: dict[str, str]
    ) -> tuple[int, Any]:
        if parts == ["files"] and method == "POST":
            return 200, self._upload(raw, headers.get("content-type", ""))
        if len(parts) == 2 and parts[0] == "files" and method == "GET":
            return 200, self.files[parts[1]].info()
        if len(parts) == 3 and parts[0] == "files" and parts[2] == "content" and method == "GET":
            return 200, self.files[parts[1]].data
        if parts == ["batches"] and method == "POST":
            created = self._create(json.loads(raw or b"{}"))
            if self.lose_create_answers > 0:
                self.lose_create_answers -= 1
                return 500, {"error": {"message": "fake: the batch was created, this answer is lost"}}
            return 200, created
        if parts == ["batches"] and method == "GET":
            return 200, self._list(query)
        if len(parts) == 2 and parts[0] == "batches" and method == "GET":
            return 200, self._retrieve(parts[1])
        if len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel" and method == "POST":
            return 200, self._cancel(parts[1])
        return 404, {"error": {"message": f"{method} /{'/'.join(parts)} not found"}}

    # --- files ---------------------------------------------------------------------------------

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    def _store(self, data: bytes, purpose: str, filename: str) -> FakeFile:
        stored = FakeFile(self._new_id("file"), data, purpose, filename, int(time.time()))
        self.files[stored.id] = stored
        return stored

    def _upload(self, raw: bytes, content_type: str) -> dict[str, Any]:
        message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        fields: dict[str, tuple[bytes, str | None]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)  # bytes, or None for a part without a body
            fields[str(name)] = (payload if isinstance(payload, bytes) else b"", part.get_filename())
        if "file" not in fields:
            raise ValueError("no file in the upload")
        purpose = fields.get("purpose", (b"", None))[0].decode()
        self.uploads += 1
        return self._store(fields["file"][0], purpose, fields["file"][1] or "upload.jsonl").info()

    # --- batches -------------------------------------------------------------------------------

    def _create(self, body: dict[str, Any]) -> dict[str, Any]:
        source = self.files[body["input_file_id"]]
        if source.purpose != "batch":
            raise ValueError(f"file {source.id} has purpose {source.purpose!r}, not 'batch'")
        lines = [json.loads(line) for line in source.data.decode().splitlines() if line.strip()]
        ids = [line["custom_id"] for line in lines]
        if len(set(ids)) != len(ids):
            raise ValueError("custom_id values must be unique within a batch")
        self.creates += 1
        batch = FakeBatch(
            self._new_id("batch"),
            source.id,
            body.get("endpoint", ""),
            body.get("completion_window", "24h"),
            int(time.time()),
            metadata=body.get("metadata"),
        )
        batch.counts["total"] = len(lines)
        self.submitted.update(ids)
        self.model_requests.update(str(line.get("body", {}).get("model")) for line in lines)
        self.batches[batch.id] = batch
        return batch.info()

    def _list(self, query: dict[str, list[str]]) -> dict[str, Any]:
        self.lists += 1
        newest = sorted(self.batches.values(), key=lambda b: int(b.id.split("-")[1]), reverse=True)
        after = query.get("after", [None])[0]
        if after is not None:
            ids = [b.id for b in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        limit = int(query.get("limit", ["20"])[0])
        page = newest[:limit]
        return {
            "object": "list",
            "data": [b.info() for b in page],
            "has_more": len(newest) > limit,
            "first_id": page[0].id if page else None,
            "last_id": page[-1].id if page else None,
        }

    def _retrieve(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        self.polls += 1
        batch.polls += 1
        if batch.status == "cancelling":
            self._finish(batch, cancelled=True)
        elif batch.status not in TERMINAL:
            batch.status = "in_progress"
            if not self.hold and batch.polls > self.polls_to_complete:
                self._finish(batch)
        return batch.info()

    def _cancel(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        self.cancels += 1
        if batch.status not in TERMINAL:
            batch.status = "cancelling"
        return batch.info()

    def _finish(self, batch: FakeBatch, *, cancelled: bool = False) -> None:
        """Answer the batch's lines into its output and error files and end it."""
        lines = [
            json.loads(line) for line in self.files[batch.input_file_id].data.decode().splitlines() if line.strip()
        ]
        if self.fail_batches:
            batch.status = "failed"
            batch.errors = [{"code": "invalid_request", "message": "the input file was refused", "line": None}]
            return
        output, errors = [], []
        expired = False
        for line in lines:
            custom_id, body = line["custom_id"], line["body"]
            fault = (
                "cancelled"
                if cancelled
                else (self.item_fault(body, self.submitted[custom_id] - 1) if self.item_fault else None)
            )
            request_id = self._new_id("req")
            if fault is None:
                self.requests.append(body)
                text = self.responder(body)
                output.append(
                    {
                        "id": request_id,
                        "custom_id": custom_id,
                        "error": None,
                        "response": {
                            "status_code": 200,
                            "request_id": request_id,
                            "body": _completion(body, text, getattr(self, "usage", "words")),
                        },
                    }
                )
            elif fault in ("server_error", "bad_request"):
                status = 500 if fault == "server_error" else 400
                errors.append(
                    {
                        "id": request_id,
                        "custom_id": custom_id,
                        "error": None,
                        "response": {
                            "status_code": status,
                            "request_id": request_id,
                            "body": {"error": {"message": f"fake {fault}", "type": fault}},
                        },
                    }
                )
            elif fault in ("expired", "cancelled"):
                expired = expired or fault == "expired"
                message = f"This request could not be executed before the batch was {fault}."
                errors.append(
                    {
                        "id": request_id,
                        "custom_id": custom_id,
                        "response": None,
                        "error": {"code": f"batch_{fault}", "message": message},
                    }
                )
            elif fault != "missing":
                raise ValueError(f"unknown item fault {fault!r}")
        if output:
            batch.output_file_id = self._store(_jsonl(output), "batch_output", "output.jsonl").id
        if errors:
            batch.error_file_id = self._store(_jsonl(errors), "batch_output", "errors.jsonl").id
        batch.counts.update(completed=len(output), failed=len(errors))
        batch.status = "cancelled" if cancelled else "expired" if expired else "completed"


def _jsonl(items: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items).encode()
