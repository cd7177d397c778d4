"""The viewer's labelling pages (`proseval view RUNS --label SESSION`): people rate answers blind.

The session (`labelsession`) and its plan (`labelplan`) are data; this module serves them. The
server knows a rater by their key (from their link, or from joining an open session under a new
name), so no one sees or saves another's labels. Writing is guarded beyond what the viewer already
requires (the token, on a host other than loopback): a form carries a secret of the server process
bound to the rater's name, and a POST whose ``Sec-Fetch-Site`` is not ``same-origin`` or whose
``Origin`` is not this server is refused (403), so no other site can submit a label through a
rater's browser; a form too large is refused before it is read (413).
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from .labelplan import LabellingError, LabelOptions, check_rater, scan_runs
from .labelsession import Session, Shown, parse_values
from .raters import COMPARED, same_name, spelled
from .runs import pretty

__all__ = [
    "LabelOptions",
    "LabellingError",
    "MAX_BODY",
    "install_labelling",
    "joining_line",
    "label_address",
    "rater_links",
    "reopened_line",
]

MAX_BODY = 256 * 1024
LOAD_TOKEN = re.compile(r"[0-9a-f]{16}")  # drawn for each form shown, recorded with its save
MAX_COMMENT = 5000


def cross_site(request: Request) -> str | None:
    """Why a POST is not from this viewer's own page (None: it is, as far as the browser says)."""
    fetch = request.headers.get("sec-fetch-site")
    if fetch is not None and fetch.lower() != "same-origin":
        return f"the form was sent from another site or page (Sec-Fetch-Site: {fetch})"
    origin = request.headers.get("origin")
    if origin is not None:
        host = request.headers.get("host", "").lower()
        if origin == "null" or urlsplit(origin).netloc.lower() != host:
            return f"the form was sent from another origin ({origin}), not from {host}"
    return None


async def capped_body(request: Request) -> bytes | None:
    """The request's body, or None when it is over `MAX_BODY`: refused by its Content-Length before
    any of it is read, else (sent in chunks) read no further than the limit."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    return bytes(body)


# the pages -------------------------------------------------------------------------------------
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("proseval.view", "templates"), autoescape=True, trim_blocks=True, lstrip_blocks=True
    )
    env.filters["pretty"] = pretty
    return env


class _Pages:
    """The labelling pages of one session: its routes, each a method (`install_labelling`)."""

    def __init__(self, session: Session, token: str | None) -> None:
        self.session = session
        self.options = session.options
        self.token = token  # the viewer's, put in the link shown to someone who joins
        self.env = _environment()
        self.cookie = f"proseval_rater_{session.name}"

    def page(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        context.setdefault("rater", None)
        text = self.env.get_template(template).render(session=self.session, options=self.options, **context)
        return HTMLResponse(text, status_code=status)

    def problem(self, message: str, status: int, rater: str | None = None) -> HTMLResponse:
        return self.page("label_error.html", status=status, message=message, rater=rater)

    def who(self, request: Request, named: str | None) -> str | Response:
        """The rater asking, or the page refusing them: the rater whose key is in their cookie (put
        there by their link, or by joining); `named`, a name in the address or form, must be theirs."""
        rater = self.session.keys.who(request.cookies.get(self.cookie))
        if rater is None:
            join = ", or join from the start page (/label)" if self.session.joinable else ""
            return self.problem(
                f"Open your own rater's link (the one you were given){join} to label in this session.", 403
            )
        if named is not None and named != rater:
            return self.problem("Refused: each rater sees and saves their own labels only.", 403, rater)
        return rater

    def with_key(self, response: Response, key: str) -> Response:
        response.set_cookie(self.cookie, key, path="/label", httponly=True, samesite="lax")
        return response

    def join(self, request: Request, given: str) -> Response:
        """Let someone join an open session under a name no one has: a key of their own, in a cookie
        and in the link shown to them once."""
        total = len(self.session.plan.items)
        if not self.session.joinable:
            return self.page(
                "label_start.html",
                status=403,
                total=total,
                default=given,
                error="This session is closed to joining: only its raters' own links let anyone "
                "in. Open the link you were given.",
            )
        fetch = request.headers.get("sec-fetch-site")
        if fetch is not None and fetch.lower() in ("cross-site", "same-site"):
            return self.problem("Refused: a session is joined from its own start page.", 403)
        try:
            name = check_rater(given)
        except LabellingError as exc:
            return self.page("label_start.html", status=422, default=given, total=total, error=str(exc))
        key, error = self.claim(name)
        if key is None:
            return self.page("label_start.html", status=409, default=given, total=total, error=error)
        viewer = str(request.base_url) + (f"?{urlencode({'token': self.token})}" if self.token else "")
        link = label_address(viewer, key)
        return self.with_key(
            self.page("label_joined.html", rater=name, link=link, total=total, first=self.session.next_position(name)),
            key,
        )

    def claim(self, name: str) -> tuple[str | None, str]:
        """A new key for `name`, or None and why not: it is a rater's name or looks like one, or has
        labels from before raters had links of their own."""
        keys = self.session.keys
        earlier = same_name(name, [rater for rater in self.session.store.raters() if rater not in keys])
        if earlier is not None:
            return None, (
                f"{_taken(name, earlier)}: {earlier} has labels in this session from before raters had "
                f"links of their own; whoever runs the session can give {earlier} a link (by starting "
                f"the viewer with --rater {earlier})"
            )
        key = keys.join(name)
        holder = keys.holder(name) or name
        return key, (
            f"{_taken(name, holder)}: {holder} comes back through their own link; anyone else, choose another name"
        )

    def located(self, position: int, rater: str) -> Shown | HTMLResponse:
        """What item `position` shows this rater, or the error page saying why it cannot be shown."""
        total = len(self.session.plan.items)
        if not 1 <= position <= total:
            return self.problem(
                f"there is no item {position} in session {self.session.name} (it has {total})", 404, rater
            )
        try:
            return self.session.show(position, rater)
        except LookupError as exc:
            return self.problem(f"item {position}: {exc}.", 410, rater)
        except Exception as exc:  # noqa: BLE001 - a benchmark's hook that fails: say so, on the page
            return self.problem(
                f"item {position}: the task's labelling form failed: {type(exc).__name__}: {exc}", 500, rater
            )

    def item_page(
        self,
        position: int,
        rater: str,
        status: int = 200,
        errors: list[str] | None = None,
        submitted: dict[str, str] | None = None,
    ) -> HTMLResponse:
        shown = self.located(position, rater)
        if isinstance(shown, Response):
            return shown
        total = len(self.session.plan.items)
        done = self.session.done(rater)
        chosen = dict(shown.previous)
        comment = ""
        if submitted is not None:
            chosen = {q.index: submitted.get(f"c{q.index}", "") for q in shown.questions}
            comment = submitted.get("comment", "")
        following = self.session.next_position(rater, position)
        return self.page(
            "label_item.html",
            status=status,
            rater=rater,
            position=position,
            total=total,
            done=len(done),
            labelled=position in done,
            shown=shown,
            chosen=chosen,
            comment=comment,
            errors=errors or [],
            csrf=self.session.csrf(rater),
            loaded=secrets.token_hex(8),
            previous=self.session.previous_position(rater, position),
            following=following if following != position else None,
        )

    def start(self, request: Request) -> Response:
        total = len(self.session.plan.items)
        key = request.query_params.get("key")
        if key is not None:  # a rater's link: the key goes in a cookie, out of the address
            if self.session.keys.who(key) is None:
                return self.problem("Refused: this is not the link of a rater of this session.", 403)
            return self.with_key(RedirectResponse("/label", status_code=303), key)
        rater = self.session.keys.who(request.cookies.get(self.cookie))
        given = request.query_params.get("rater")
        if given is not None and given.strip() != rater:
            return self.join(request, given)
        if rater is None:
            return self.page("label_start.html", total=total, error=None)
        position = self.session.next_position(rater)
        if position is None:
            return self.page("label_done.html", rater=rater, total=total, done=len(self.session.done(rater)))
        return RedirectResponse(f"/label/{position}", status_code=303)

    def show_item(self, position: int, request: Request) -> Response:
        rater = self.who(request, request.query_params.get("rater"))
        return rater if isinstance(rater, Response) else self.item_page(position, rater)

    async def submit(self, position: int, request: Request) -> Response:
        refused = cross_site(request)
        if refused is not None:
            return self.problem(
                f"Refused: {refused}. Labels are saved only from this viewer's own labelling page.", 403
            )
        body = await capped_body(request)
        if body is None:
            return self.problem(f"the form is too large (at most {MAX_BODY // 1024} KiB)", 413)
        if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
            return self.problem("the labelling form is sent as application/x-www-form-urlencoded", 415)
        try:
            form = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, max_num_fields=200))
        except ValueError as exc:  # not UTF-8, or too many fields
            return self.problem(f"the form could not be read ({exc})", 400)
        given = form.get("rater", "")
        if not hmac.compare_digest(form.get("csrf", "").encode(), self.session.csrf(given).encode()):
            return self.problem(
                "Refused: the form's check value is missing or out of date (the viewer may have been "
                "restarted since the page was opened). Reload the page and label the item again.",
                403,
            )
        rater = self.who(request, given)
        if isinstance(rater, Response):
            return rater
        return await run_in_threadpool(self.save, position, rater, form)

    def save(self, position: int, rater: str, form: dict[str, str]) -> Response:
        shown = self.located(position, rater)
        if isinstance(shown, Response):
            return shown
        values, errors = parse_values(shown, form)
        comment = form.get("comment", "").strip() or None
        if comment is not None and len(comment) > MAX_COMMENT:
            errors.append(f"comment: at most {MAX_COMMENT} characters (got {len(comment)})")
        if errors:
            return self.item_page(position, rater, status=422, errors=errors, submitted=form)
        try:
            labels = self.session.labels_of(shown, rater, values, comment)
        except ValidationError as exc:
            return self.item_page(
                position,
                rater,
                status=422,
                submitted=form,
                errors=[e["msg"].removeprefix("Value error, ") for e in exc.errors()],
            )
        loaded = form.get("loaded", "")
        self.session.store.save(
            labels,
            {
                "session": self.session.name,
                "position": position,
                **({"form": loaded} if LOAD_TOKEN.fullmatch(loaded) else {}),
            },
        )
        following = self.session.next_position(rater, position)
        if following is None:
            return RedirectResponse("/label", status_code=303)
        return RedirectResponse(f"/label/{following}", status_code=303)

    def agreement(self, request: Request) -> Response:
        return self.page("label_agreement.html", refresh=_refresh(request), **agreement_of(self.session))


def install_labelling(app: FastAPI, root: Path, options: LabelOptions, token: str | None = None) -> Session:
    """Open (or plan) the session and add its pages to the viewer's app (`token`: the viewer's, put
    in the link shown to someone who joins); with `options.only`, the viewer's other pages are taken
    away."""
    session = Session(root, options)
    pages = _Pages(session, token)
    routes = [Route("/label", pages.start, methods=["GET"])]
    if not options.only:
        routes.append(Route("/label/agreement", pages.agreement, methods=["GET"]))
    routes += [
        Route("/label/{position:int}", _with_position(pages.show_item), methods=["GET"]),
        Route("/label/{position:int}", _with_position(pages.submit), methods=["POST"]),
    ]
    if options.only:  # raters only: no run list, run or sample page (they name models and scores)
        app.router.routes[:] = [
            r
            for r in app.router.routes
            if getattr(r, "path", "").startswith("/static") or getattr(r, "path", "") == "/favicon.ico"
        ]
        routes.append(Route("/", lambda request: RedirectResponse("/label", status_code=303), methods=["GET"]))
    app.router.routes.extend(routes)
    app.state.labelling = session
    return session


def label_address(url: str, key: str | None = None) -> str:
    """The labelling start of the viewer at `url` (``http://host:port/`` with its ``?token=`` if any),
    as the rater whose key is `key`."""
    base, _, query = url.partition("?")
    params = ([("key", key)] if key else []) + parse_qsl(query)
    return base.rstrip("/") + "/label" + ("?" + urlencode(params) if params else "")


def rater_links(session: Session, url: str) -> list[str]:
    """A line per rater named when starting the viewer: a new rater's own link (shown this once),
    or that an earlier start gave them one."""
    return [
        f"  {name}: {label_address(url, session.new_keys[name])}"
        if name in session.new_keys
        else f"  {name}: has the link an earlier start printed (only its hash is kept; to give a new one, "
        f"take {name} out of {session.keys.path})"
        for name in session.options.raters
    ]


def reopened_line(session: Session) -> str:
    """The warning of a start that opened a session closed to joining (`--reopen`)."""
    return (
        f"warning: session {session.name} was closed to joining and is open now (--reopen; kept in "
        f"{session.plan_path}): anyone who reaches /label can join it under a name no one in it has"
    )


def joining_line(session: Session) -> str:
    """What the viewer says when it starts of who may label in the session."""
    if session.joinable:
        return (
            f"Session {session.name} is open: anyone who reaches /label joins it under a name no one in it has "
            "(kept in its plan: planned without --rater, or reopened with --reopen)."
        )
    return (
        f"Session {session.name} is closed to joining: only its raters' own links let anyone in (it was "
        "planned with raters named); --rater NAME gives someone else a link, --reopen lets anyone join."
    )


def _with_position(handler: Callable[..., Any]) -> Callable[[Request], Any]:
    """A starlette endpoint calling `handler(position, request)`."""
    import inspect

    if inspect.iscoroutinefunction(handler):

        async def endpoint(request: Request) -> Response:
            return await handler(request.path_params["position"], request)
    else:

        async def endpoint(request: Request) -> Response:
            return await run_in_threadpool(handler, request.path_params["position"], request)

    return endpoint


def _taken(name: str, holder: str) -> str:
    """Why `name` cannot be joined under: it is `holder`'s name, or looks like it (and what tells the
    two apart, when a reader may not see it)."""
    if name == holder:
        return f"the name {name} is taken"
    apart = spelled(name, holder)
    return f"the name {name} looks like {holder}, a rater of this session ({COMPARED}{'; ' + apart if apart else ''})"


def _refresh(request: Request) -> int | None:
    """The agreement page reloads itself every 15 s unless ``refresh=0`` (or another period) is asked."""
    try:
        seconds = int(request.query_params.get("refresh", "15"))
    except ValueError:
        seconds = 15
    return None if seconds <= 0 else max(5, min(seconds, 3600))


def agreement_tables(analysis: Any) -> tuple[list[Any], list[str]]:
    """The tables and sentences of `proseval agreement` (`reliability.render`), with what the
    analysis left out (labels that matched nothing a judge rated, runs set aside) among the notes;
    the count of labels read is the page's own summary."""
    from ..reliability.render import analysis_lines, analysis_tables, analysis_warnings

    lines = analysis_lines(analysis)[1 if analysis.labels is not None else 0 :]
    return analysis_tables(analysis), [f"{text}." for text in (*analysis_warnings(analysis), *lines)]


def agreement_of(session: Session) -> dict[str, Any]:
    """The judge-reliability analysis of the session's runs against the labels so far: the evaluator
    cards of `proseval agreement` (recomputed on each request)."""
    from ..errors import DataError, MissingDataError
    from ..reliability.analysis import analyse
    from ..reliability.labels import read_labels

    notes: list[str] = []
    runs = scan_runs(session.root)
    planned_tasks = {item.task for item in session.plan.items}
    paths = [run.path for _, run in sorted(runs.items()) if run.header.task in planned_tasks]
    labels = None
    try:
        labels = read_labels(session.store.path)
    except MissingDataError:
        notes.append("No labels yet: the judges are compared with each other only.")
    except DataError as exc:
        message = str(exc)
        if "no labels in the file" in message:
            notes.append("No labels yet: the judges are compared with each other only.")
        else:
            notes.append(f"The labels file cannot be read in full, so it is left out: {message}")
    context: dict[str, Any] = {
        "notes": notes,
        "counts": session.raters(),
        "runs": len(paths),
        "tables": [],
        "summary": None,
        "error": None,
    }
    try:
        analysis = analyse(paths, labels=labels)
    except Exception as exc:  # noqa: BLE001 - shown on the page: no judged runs, a task that cannot be built
        context["error"] = f"{type(exc).__name__}: {exc}"
        return context
    tables, more = agreement_tables(analysis)
    notes += more
    context.update(tables=tables, summary=analysis.labels)
    return context
