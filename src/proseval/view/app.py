"""The viewer's web app: a run list, a page per run (summary and a paged, filtered sample table)
and a page per sample. Read-only; every text from a run is escaped by the templates."""

from __future__ import annotations

import hmac
import ipaddress
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader

from ..commandline.units import Unit, definitions, metric_units, unit_of
from ..runtime.runlog import SAMPLES
from . import blocks as views
from .index import IndexCache, LineIndex, Summary, summarize
from .labelling import LabelOptions, install_labelling
from .runs import RunInfo, counts, find_runs, pretty, read_info

COOKIE = "proseval_view_token"
PER_PAGE = 50
MAX_PER_PAGE = 500
SCORE_COLUMNS = 8
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class Filters:
    """The run page's query: paging, status, a score range and slice values."""

    page: int = 1
    per: int = PER_PAGE
    status: str = ""
    metric: str = ""
    low: float | None = None
    high: float | None = None
    text: str = ""
    slices: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, query: Any) -> Filters:
        def number(name: str) -> float | None:
            try:
                value = float(query.get(name, ""))
            except ValueError:
                return None
            return value if math.isfinite(value) else None

        def whole(name: str, default: int, top: int) -> int:
            try:
                return max(1, min(top, int(query.get(name, default))))
            except ValueError:
                return default

        return cls(
            page=whole("page", 1, 10**9),
            per=whole("per", PER_PAGE, MAX_PER_PAGE),
            status=query.get("status", "") if query.get("status") in ("scored", "unscored", "failed") else "",
            metric=query.get("metric", ""),
            low=number("min"),
            high=number("max"),
            text=query.get("q", ""),
            slices={k[2:]: v for k, v in query.items() if k.startswith("s.") and v != ""},
        )

    @property
    def active(self) -> bool:
        ranged = bool(self.metric) and (self.low is not None or self.high is not None)
        return bool(self.status or ranged or self.text or self.slices)

    def keeps(self, s: Summary) -> bool:
        if self.status and s.status != self.status:
            return False
        if self.text and self.text.lower() not in s.id.lower():
            return False
        if any(str(s.slices.get(k)) != v for k, v in self.slices.items()):
            return False
        if self.metric and (self.low is not None or self.high is not None):
            value = s.scores.get(self.metric)
            if (
                value is None
                or (self.low is not None and value < self.low)
                or (self.high is not None and value > self.high)
            ):
                return False
        return True

    def query(self, **change: Any) -> str:
        values = {
            "status": self.status,
            "metric": self.metric,
            "min": _plain(self.low),
            "max": _plain(self.high),
            "q": self.text,
            "per": self.per if self.per != PER_PAGE else "",
            "page": self.page,
            **{f"s.{k}": v for k, v in self.slices.items()},
        }
        values.update(change)
        return urlencode({k: v for k, v in values.items() if v not in ("", None) and not (k == "page" and v == 1)})


def _plain(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("proseval.view", "templates"), autoescape=True, trim_blocks=True, lstrip_blocks=True
    )
    env.filters["pretty"] = pretty
    env.filters["num"] = _number
    env.filters["in_unit"] = _in_unit
    env.globals["unit_of"] = lambda task, metric: unit_of(metric, definitions(task), task)
    return env


def _number(value: Any) -> str:
    return "–" if value is None else (f"{value:.4g}" if isinstance(value, float) else str(value))


def _in_unit(value: Any, unit: Unit | None) -> str:
    """A figure with its unit's mark ("150 %"); the mark is left out where there is no figure."""
    text = _number(value)
    return f"{text} {unit.mark}" if unit is not None and unit.mark and value is not None else text


def create_app(
    runs_dir: Path, *, host: str = "127.0.0.1", token: str | None = None, labelling: LabelOptions | None = None
) -> FastAPI:
    """The app over the run folders in `runs_dir`. A host that is not loopback needs a token."""
    if not is_loopback(host) and not token:
        raise ValueError(f"refusing to serve on {host} without a token: anyone who can reach it could read the runs")
    root = Path(runs_dir)
    env = _environment()
    cache = IndexCache()
    app = FastAPI(title="proseval view", docs_url=None, redoc_url=None, openapi_url=None)
    app.mount("/static", StaticFiles(packages=[("proseval.view", "static")]), name="static")

    def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(template).render(**context), status_code=status)

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Response:
        response = await _check(request, call_next, token, loopback_only=is_loopback(host))
        response.headers.update(SECURITY_HEADERS)
        return response

    def run_named(name: str) -> RunInfo:
        path = find_runs(root).get(name)
        if path is None:
            raise HTTPException(404, f"no run folder named {name!r} in {root}")
        info = read_info(name, path)
        if info.header is None:
            raise HTTPException(422, info.problem)
        return info

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> HTMLResponse:
        response = page("error.html", status=exc.status_code, message=str(exc.detail))
        response.headers.update(SECURITY_HEADERS)
        return response

    @app.get("/favicon.ico")
    def no_icon() -> Response:
        return Response(status_code=204)

    @app.get("/", response_class=HTMLResponse)
    def run_list(request: Request) -> HTMLResponse:
        infos = [read_info(name, path) for name, path in find_runs(root).items()]
        infos.sort(key=lambda i: i.header.started_at if i.header else "", reverse=True)
        rows = [(info, counts(info, cache) if info.header else None) for info in infos]
        return page("runs.html", root=str(root), rows=rows, refresh=_refresh(request))

    @app.get("/runs/{name}", response_class=HTMLResponse)
    def run_page(name: str, request: Request) -> HTMLResponse:
        info = run_named(name)
        index = cache.get(info.path / SAMPLES)
        filters = Filters.parse(request.query_params)
        summaries = index.summary_list() if filters.active or info.results is None else None
        if filters.active:
            assert summaries is not None
            chosen = [n for n, s in enumerate(summaries) if filters.keeps(s)]
            total = len(chosen)
            first = (filters.page - 1) * filters.per
            rows = [(n, index.read_one(n)) for n in chosen[first : first + filters.per]]
        else:
            total = len(index)
            rows = index.read(min(total, (filters.page - 1) * filters.per), filters.per)
        table = [(n + 1, record, summarize(record) if record else None) for n, record in rows]
        slice_options = _slice_options(info, summaries if summaries is not None else index.summaries)
        columns = _score_columns(info, [s for _, _, s in table if s])
        assert info.header is not None  # run_named refuses a run without one
        units = metric_units(info.header.task, [*(info.results.metrics if info.results else ()), *columns])
        return page(
            "run.html",
            info=info,
            counts=counts(info, cache),
            filters=filters,
            table=table,
            total=total,
            units=units,
            pages=max(1, math.ceil(total / filters.per)),
            columns=columns,
            slice_options=slice_options,
            charts=sorted(p.name for p in info.path.glob("*.png")),
            refresh=_refresh(request),
            metrics=_metric_names(info, summaries),
        )

    @app.get("/runs/{name}/samples/{line}", response_class=HTMLResponse)
    def sample_page(name: str, line: int) -> HTMLResponse:
        """The sample on a line of samples.jsonl (quick to reach; a rewritten file can move it)."""
        info = run_named(name)
        index = cache.get(info.path / SAMPLES)
        if not 1 <= line <= len(index):
            raise HTTPException(404, f"{name} has no sample on line {line} (it has {len(index)})")
        return sample_at(info, index, line)

    @app.get("/runs/{name}/sample", response_class=HTMLResponse)
    def sample_by_id(name: str, sample_id: str = Query(..., alias="id"), epoch: int = 0) -> HTMLResponse:
        """The sample with this id and epoch, wherever it is in the file: a link that stays valid
        when ``resume --retry-failed`` rewrites samples.jsonl. Of several records for one sample,
        the one the results count (a finished one before a failed one, then the later one)."""
        info = run_named(name)
        index = cache.get(info.path / SAMPLES)
        summaries = index.summary_list()
        found = [n for n, s in enumerate(summaries) if s.id == sample_id and s.epoch == epoch]
        if not found:
            raise HTTPException(404, f"{name} has no sample {sample_id!r} in epoch {epoch}")
        finished = [n for n in found if summaries[n].status != "failed"]
        return sample_at(info, index, (finished or found)[-1] + 1)

    def sample_at(info: RunInfo, index: LineIndex, line: int) -> HTMLResponse:
        record = index.read_one(line - 1)
        if record is None:
            raise HTTPException(422, f"{info.path / SAMPLES}: sample {line} is not a JSON object")
        state = record.get("state") or {}
        assert info.header is not None  # run_named refuses a run without one
        blocks, problems = views.sample_blocks(info.header, record)  # the benchmark's own views, by its hook
        return page(
            "sample.html",
            info=info,
            line=line,
            lines=len(index),
            record=record,
            state=state,
            blocks=blocks,
            view_problems=problems,
            turns_drawn=views.draws_turns(blocks),
            raw_answers=views.raw_answers,
        )

    @app.get("/runs/{name}/files/{filename}")
    def run_file(name: str, filename: str) -> FileResponse:
        info = run_named(name)
        charts = {p.name: p for p in info.path.glob("*.png")}
        if filename not in charts:
            raise HTTPException(404, f"{name} has no chart {filename!r}")
        return FileResponse(charts[filename], media_type="image/png")

    if labelling is not None:  # `--label SESSION`: the labelling pages (view/labelling.py)
        install_labelling(app, root, labelling, token=token)
    return app


async def _check(request: Request, call_next: Any, token: str | None, *, loopback_only: bool) -> Response:
    """Loopback: only requests addressed to a loopback name (a page elsewhere cannot reach the viewer
    by rebinding its own name to 127.0.0.1). With a token: once in the query, then in a cookie."""
    if loopback_only and not is_loopback(_host_name(request.headers.get("host", ""))):
        return HTMLResponse("This viewer answers only on localhost.", status_code=421)
    if token is None:
        return await call_next(request)
    given = request.query_params.get("token")
    if given is not None:
        if not hmac.compare_digest(given.encode(), token.encode()):
            return HTMLResponse("Wrong token.", status_code=403)
        rest = urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
        response: Response = RedirectResponse(request.url.path + (f"?{rest}" if rest else ""), status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response
    if hmac.compare_digest((request.cookies.get(COOKIE) or "").encode(), token.encode()):
        return await call_next(request)
    return HTMLResponse("This viewer needs its token: open the address it printed when it started.", status_code=401)


def _host_name(header: str) -> str:
    """The name in a Host header, without its port ("[::1]:8765" -> "::1")."""
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def _refresh(request: Request) -> int | None:
    try:
        seconds = int(request.query_params.get("refresh", ""))
    except ValueError:
        return None
    return max(2, min(seconds, 3600))


def _slice_options(info: RunInfo, summaries: list[Summary]) -> dict[str, list[str]]:
    """The values each slice field takes: from results.json's slice tables and the records summarized so far."""
    options: dict[str, set[str]] = {}
    if info.results is not None:
        for key, table in info.results.slices.items():
            options.setdefault(key, set()).update(table)
    for summary in summaries:
        for key, value in summary.slices.items():
            options.setdefault(key, set()).add(str(value))
    declared = info.results.slices if info.results is not None else {}
    return {k: sorted(v)[:200] for k, v in sorted(options.items()) if len(v) > 1 or k in declared}


def _metric_names(info: RunInfo, summaries: list[Summary] | None) -> list[str]:
    names = list(info.results.metrics) if info.results is not None else []
    for summary in summaries or []:
        names += [n for n in summary.scores if n not in names]
    return names


def _score_columns(info: RunInfo, summaries: list[Summary]) -> list[str]:
    names = _metric_names(info, summaries)
    return names[:SCORE_COLUMNS]
