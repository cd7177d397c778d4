"""Labelling cannot lose or mix labels: a save is one record (a crash leaves an item whole or
unlabelled), two tabs never merge, raters with links of their own are blind to each other and
cannot save as another, an oversized form is refused unread, and a save reads nothing back.

A real viewer process is killed (``kill -9``) during parallel saves; the rest goes through the
ASGI app as in `test_labelling`.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from proseval.errors import DataError
from proseval.reliability.labels import Label, read_labels
from proseval.view import create_app
from proseval.view.labelling import MAX_BODY, LabellingError, LabelOptions
from proseval.view.labelstore import LabelStore
from view.test_labelling import LOCAL, _jsonl, client, csrf_of, labelling_runs, labels_of, post, records_of, restarted
from view.view_fixtures import header, record

CRITERIA = 5
BANDS = {"1-2": "bad", "3-4": "weak", "5-6": "fair", "7-8": "good", "9-10": "great"}
SERVER = """
import sys, uvicorn
from pathlib import Path
from proseval.view import create_app
from proseval.view.labelling import LabelOptions
app = create_app(Path(sys.argv[1]), labelling=LabelOptions("s1"))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="critical")
"""


def checklist_runs(root: Path, samples: int) -> Path:
    """One WritingBench run: each answer is scored on a checklist of `CRITERIA` criteria."""
    folder = root / "wb-run"
    folder.mkdir(parents=True)
    (folder / "header.json").write_text(json.dumps(header("wb-run", "writingbench")), encoding="utf-8")
    checklist = [{"name": f"Criterion {k}", "criteria_description": f"about {k}", **BANDS} for k in range(CRITERIA)]
    _jsonl(folder / "samples.jsonl", [record(n, target={"checklist": checklist}) for n in range(samples)])
    return root


def answers(value: int) -> dict[str, str]:
    return {f"c{k}": str(value) for k in range(CRITERIA)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Path, str, subprocess.Popen]]:
    """A viewer process labelling a planned session of 300 checklist items: (runs, its address, process)."""
    root = checklist_runs(tmp_path / "runs", 300)
    client(root, seed=1)  # plans the session
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", SERVER, str(root), str(port)])
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{url}/label").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        yield root, url, process
    finally:
        process.kill()
        process.wait()


# a crash leaves an item whole or unlabelled --------------------------------------------------------
def test_a_viewer_killed_during_parallel_saves_leaves_every_item_whole_or_unlabelled(server):
    root, url, process = server
    web = httpx.Client(base_url=url, timeout=10)
    assert web.get("/label", params={"rater": "Ann"}).status_code == 200  # joined: Ann's key in a cookie
    csrf = csrf_of(web.get("/label/1", params={"rater": "Ann"}).text)
    acknowledged: list[int] = []

    def save(position: int) -> None:
        try:
            response = web.post(f"/label/{position}", data={"rater": "Ann", "csrf": csrf, **answers(position % 10 + 1)})
        except httpx.TransportError:
            return
        if response.status_code == 303:
            acknowledged.append(position)

    with ThreadPoolExecutor(16) as pool:
        pool.map(save, range(1, 301))
        deadline = time.monotonic() + 60
        while len(acknowledged) < 60 and time.monotonic() < deadline:
            time.sleep(0.001)
        os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert len(acknowledged) >= 60
    lines = (root / "labels" / "s1.jsonl").read_bytes().split(b"\n")
    if lines[-1]:  # a write the kill cut short: not a label
        assert not lines[-1].endswith(b"}")
    stored = [json.loads(line) for line in lines[:-1]]
    assert stored and all(len(r["labels"]) == CRITERIA for r in stored)  # every item whole
    saved = {r["item"]["position"] for r in stored}
    assert set(acknowledged) <= saved < set(range(1, 301))  # what was acknowledged is kept
    for r in stored:
        assert {label["score"] for label in r["labels"]} == {r["item"]["position"] % 10 + 1}

    restarted = client(root)
    session = restarted.app.state.labelling
    assert session.done("Ann") == saved
    missing = set(range(1, 301)) - saved
    asked, position = [], session.next_position("Ann")
    while position is not None and position not in asked:
        asked.append(position)
        position = session.next_position("Ann", position)
    assert asked[0] == min(missing) and set(asked) == missing  # the restart asks for every missing item
    assert len(read_labels(root / "labels" / "s1.jsonl")) == CRITERIA * len(saved)


def test_a_save_cut_short_is_unlabelled_on_restart_and_removed_by_the_next_save(tmp_path: Path):
    root = checklist_runs(tmp_path / "runs", 3)
    web = client(root, seed=1, rater="Ann")
    for position in (1, 2):
        assert post(web, position, "Ann", answers(4)).status_code == 303
    path = root / "labels" / "s1.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole[:-40])  # the second record torn mid-write
    assert len(read_labels(path)) == CRITERIA  # the torn line is not read as labels, nor refused
    again = restarted(root, web)
    assert again.app.state.labelling.done("Ann") == {1}
    continued = again.get("/label", follow_redirects=False)
    assert continued.headers["location"] == "/label/2"
    assert post(again, 2, "Ann", answers(9)).status_code == 303
    assert [r["item"]["position"] for r in records_of(root)] == [1, 2]  # the torn tail is gone
    assert len(read_labels(path)) == 2 * CRITERIA


def test_labels_of_the_older_format_are_read_and_continued(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    web = client(root, seed=1, items="scores")
    item = web.app.state.labelling.plan.items[0]
    old = Label(sample_id=item.sample_id, run=item.runs[0], criterion="quality", rater="Ann", score=3, session="s1")
    (root / "labels" / "s1.jsonl").write_text(old.model_dump_json(exclude_none=True) + "\n", encoding="utf-8")
    web = client(root)
    refused = web.get("/label", params={"rater": "Ann"})  # Ann's labels came before raters had links
    assert refused.status_code == 409 and "--rater Ann" in refused.text
    again = client(root, raters=("Ann",))  # whoever runs the session gives Ann a link
    assert again.get("/label", params={"key": again.app.state.labelling.new_keys["Ann"]}).status_code == 200
    assert again.app.state.labelling.done("Ann") == {1}
    assert 'value="3" checked' in again.get("/label/1", params={"rater": "Ann"}).text
    assert post(again, 1, "Ann", {"c0": "8"}).status_code == 303
    assert [label.score for label in read_labels(root / "labels" / "s1.jsonl").labels] == [8]


# two tabs never mix ----------------------------------------------------------------------------
def test_two_tabs_saving_one_item_store_one_submission_whole(server):
    root, url, _ = server
    web = httpx.Client(base_url=url, timeout=10)
    assert web.get("/label", params={"rater": "Ann"}).status_code == 200
    tabs = [web.get("/label/7", params={"rater": "Ann"}).text for _ in range(2)]
    loaded = [re.search(r'name="loaded" value="(\w+)"', tab).group(1) for tab in tabs]
    assert loaded[0] != loaded[1]

    def tab(n: int) -> None:
        for _ in range(15):
            web.post(
                "/label/7",
                data={"rater": "Ann", "csrf": csrf_of(tabs[n]), "loaded": loaded[n], **answers(3 if n == 0 else 8)},
            )

    threads = [threading.Thread(target=tab, args=(n,)) for n in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = records_of(root)
    assert len(records) == 30 and {r["item"]["form"] for r in records} == set(loaded)
    for r in records:
        assert [label["score"] for label in r["labels"]] == [3 if r["item"]["form"] == loaded[0] else 8] * CRITERIA
    last = records[-1]
    kept = {label.criterion: label.score for label in read_labels(root / "labels" / "s1.jsonl").labels}
    assert kept == {label["criterion"]: label["score"] for label in last["labels"]}


def test_a_later_save_replaces_the_whole_item_never_merging_criteria(tmp_path: Path):
    path = tmp_path / "labels.jsonl"
    store = LabelStore(path, "s1")

    def label(criterion: str, score: int) -> Label:
        return Label(sample_id="x", run="r", criterion=criterion, rater="Ann", score=score, session="s1")

    store.save([label("tone", 1), label("facts", 1)], {"position": 1})
    store.save([label("tone", 2)], {"position": 1})  # the form changed between the two saves
    for reading in (store, LabelStore(path, "s1")):
        assert [(x.criterion, x.score) for x in reading.items("Ann")[("run", "r", "x", 0)]] == [("tone", 2)]


# raters are blind to each other -------------------------------------------------------------------
def test_raters_with_their_own_links_neither_read_nor_write_each_others_labels(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=3)
    app = create_app(root, labelling=LabelOptions("s1", raters=("Ann", "Ben"), seed=1, items="scores"))
    keys = app.state.labelling.new_keys
    ann, ben, stranger = (TestClient(app, base_url=LOCAL) for _ in range(3))
    start = stranger.get("/label")
    assert start.status_code == 200 and "Ann" not in start.text and "Ben" not in start.text
    assert 'name="rater"' not in start.text  # no name to type: only a link names a rater
    assert stranger.get("/label", params={"key": "not-a-key"}).status_code == 403
    assert stranger.get("/label/1").status_code == 403
    assert stranger.get("/label/1", params={"rater": "Ann"}).status_code == 403
    for web, name in ((ann, "Ann"), (ben, "Ben")):
        entered = web.get("/label", params={"key": keys[name]}, follow_redirects=False)
        assert entered.status_code == 303 and entered.headers["location"] == "/label"
        assert web.get("/label", follow_redirects=False).headers["location"] == "/label/1"
    page = ann.get("/label/1").text
    assert "labelled by Ann" in page
    assert (
        ann.post(
            "/label/1", data={"rater": "Ann", "csrf": csrf_of(page), "c0": "2"}, follow_redirects=False
        ).status_code
        == 303
    )
    assert ben.get("/label/1", params={"rater": "Ann"}).status_code == 403  # Ann's answers are not shown to Ben
    bens = ben.get("/label/1").text
    assert "labelled by Ben" in bens and 'value="2" checked' not in bens and 'id="labelled"' not in bens
    attempts = [
        (ben, {"rater": "Ann", "csrf": csrf_of(page)}),  # Ann's page's form, sent with Ben's key
        (ben, {"rater": "Ann", "csrf": app.state.labelling.csrf("Ann")}),
        (stranger, {"rater": "Ann", "csrf": csrf_of(page)}),  # no key at all
        (ann, {"rater": "Ben", "csrf": csrf_of(bens)}),
    ]
    for web, form in attempts:
        refused = web.post("/label/1", data={**form, "c0": "9"}, follow_redirects=False)
        assert refused.status_code == 403, form
    assert [(x["rater"], x["score"]) for x in labels_of(root)] == [("Ann", 2)]
    assert (
        ben.post(
            "/label/1", data={"rater": "Ben", "csrf": csrf_of(bens), "c0": "5"}, follow_redirects=False
        ).status_code
        == 303
    )
    assert 'value="2" checked' in ann.get("/label/1").text and 'value="5" checked' in ben.get("/label/1").text


def test_people_join_an_open_session_under_a_name_no_one_else_can_take(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    app = client(root, seed=1, items="scores").app
    ann, other, later = (TestClient(app, base_url=LOCAL) for _ in range(3))
    joined = ann.get("/label", params={"rater": "Ann"})
    assert joined.status_code == 200 and "Welcome, Ann" in joined.text
    link = re.search(r'id="rater-link"[^>]* value="([^"]+)"', joined.text).group(1)
    assert (
        ann.post(
            "/label/1",
            data={"rater": "Ann", "csrf": app.state.labelling.csrf("Ann"), "c0": "4"},
            follow_redirects=False,
        ).status_code
        == 303
    )
    taken = other.get("/label", params={"rater": "Ann"})  # someone else typing Ann's name
    assert taken.status_code == 409 and "taken" in taken.text
    assert other.get("/label/1", params={"rater": "Ann"}).status_code == 403  # Ann's answers are not shown
    assert (
        other.post(
            "/label/1",
            data={"rater": "Ann", "csrf": app.state.labelling.csrf("Ann"), "c0": "9"},
            follow_redirects=False,
        ).status_code
        == 403
    )
    assert other.get("/label", params={"rater": " Ann "}).status_code == 409  # the same name, spaced
    assert [(x["rater"], x["score"]) for x in labels_of(root)] == [("Ann", 4)]
    # Ann's own link lets her back in from another browser, where she sees her label
    assert later.get(link.removeprefix(LOCAL), follow_redirects=False).status_code == 303
    assert 'value="4" checked' in later.get("/label/1").text
    # joining from another site is refused
    lured = TestClient(app, base_url=LOCAL).get(
        "/label", params={"rater": "Eve"}, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert lured.status_code == 403
    # a session whose raters were named by whoever started it cannot be joined
    closed = client(root, session="named", seed=1, items="scores", raters=("Ben",))
    refused = closed.get("/label", params={"rater": "Cy"})
    assert refused.status_code == 403 and "closed to joining" in refused.text


LOOK_ALIKES = {"ann": "Ann", "ANN": "Ann", " aNN ": "Ann", "\uff21nn": "Ann", "bo   EK": "Bo Ek"}  # full width


def test_no_one_joins_under_a_look_alike_of_a_raters_name_also_after_a_restart(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    web = client(root, seed=1, items="scores", rater="Ann")
    assert TestClient(web.app, base_url=LOCAL).get("/label", params={"rater": "Bo Ek"}).status_code == 200
    for viewer in (web, client(root)):  # the second: a restart, the names read back from the raters file
        for name, holder in LOOK_ALIKES.items():
            refused = TestClient(viewer.app, base_url=LOCAL).get("/label", params={"rater": name})
            assert refused.status_code == 409 and f"looks like {holder}, a rater" in refused.text, name
    again = client(root)
    assert TestClient(again.app, base_url=LOCAL).get("/label", params={"rater": "Anna"}).status_code == 200
    kept = json.loads((root / "labels" / "s1.raters.json").read_text(encoding="utf-8"))["raters"]
    assert sorted(kept) == ["Ann", "Anna", "Bo Ek"]  # the names as typed; no look-alike among them


def test_look_alike_raters_named_at_start_up_are_a_usage_error_naming_both(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    with pytest.raises(LabellingError, match="'Ann' and 'ANN' look alike"):
        LabelOptions("s1", raters=("Ann", "Bo", "ANN"))
    client(root, seed=1, items="scores", raters=("Ann",))
    with pytest.raises(LabellingError, match="'\uff21nn' looks like 'Ann'"):  # Ann from the raters file
        client(root, raters=("\uff21nn",))
    assert list(json.loads((root / "labels" / "s1.raters.json").read_text(encoding="utf-8"))["raters"]) == ["Ann"]


def test_the_viewer_refuses_a_labels_file_agreement_would_refuse_naming_the_line(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    web = client(root, seed=1, items="scores", rater="Ann")
    assert post(web, 1, "Ann", {"c0": "4"}).status_code == 303
    path = root / "labels" / "s1.jsonl"
    with path.open("a", encoding="utf-8") as file:
        file.write('{"sample_id": "x", "criterion": "quality", "rater": "Bo", "score": "\uff17"}\n')
    with pytest.raises(DataError) as by_agreement:
        read_labels(path)
    with pytest.raises(LabellingError) as by_viewer:
        client(root)
    assert f"{path}:2:" in str(by_agreement.value) and f"{path}:2:" in str(by_viewer.value)
    assert "ASCII digits" in str(by_viewer.value)


# an oversized form is refused unread ---------------------------------------------------------------
def test_an_oversized_form_is_refused_by_its_length_before_its_body_is_read(tmp_path: Path):
    root = labelling_runs(tmp_path / "runs", samples=2)
    web = client(root, seed=1, items="scores", rater="Ann")
    csrf = csrf_of(web.get("/label/1", params={"rater": "Ann"}).text)
    sent: list[int] = []

    def body() -> Iterator[bytes]:
        for _ in range(200):
            sent.append(1)
            yield b"x" * (1024 * 1024)

    refused = web.post(
        "/label/1",
        content=body(),
        headers={"Content-Length": str(200 * 1024 * 1024), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert refused.status_code == 413 and sent == []  # not a byte of it read
    fits = f"rater=Ann&csrf={csrf}&c0=5".encode()
    assert (
        web.post(
            "/label/1",
            content=fits,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        ).status_code
        == 303
    )


def test_an_oversized_form_in_chunks_is_read_no_further_than_the_limit(server):
    _, url, _ = server
    port = int(url.rsplit(":", 1)[1])
    sent = 0
    # once the server stops reading, the kernel still takes what its buffers hold (up to the largest
    # receive and send buffers); a server that read on would take all of `cap`
    buffers = sum(int(Path(f"/proc/sys/net/ipv4/{name}").read_text().split()[2]) for name in ("tcp_rmem", "tcp_wmem"))
    bound = MAX_BODY + buffers
    cap = bound + 16 * 1024 * 1024
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(
            b"POST /label/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\n\r\n"
        )
        chunk = b"x" * 65536
        sock.settimeout(5)
        while sent < cap and not select.select([sock], [], [], 0)[0]:  # until the server answers
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:  # the server closed the connection after answering
                break
            sent += len(chunk)
        reply = sock.recv(1024)
    assert reply.startswith(b"HTTP/1.1 413")
    assert sent < bound  # the server stopped reading at the limit: only the buffers took more


# a save reads nothing back ------------------------------------------------------------------------------
def test_saves_append_without_reading_the_labels_file(tmp_path: Path, monkeypatch):
    root = labelling_runs(tmp_path / "runs", samples=24)
    path = root / "labels" / "s1.jsonl"
    path.parent.mkdir(parents=True)
    earlier = Label(sample_id="other", run="r", criterion="quality", rater="Old", score=1, session="s1")
    path.write_text((earlier.model_dump_json() + "\n") * 5000, encoding="utf-8")
    web = client(root, seed=1, items="scores", rater="Ann")
    csrf = csrf_of(web.get("/label/1", params={"rater": "Ann"}).text)
    opened: list[str] = []
    original = Path.open

    def counting(self: Path, *args, **kwargs):
        if self == path:
            opened.append(str(args))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self}"))
    for position in range(1, 41):
        assert post(web, position, "Ann", {"c0": "6"}, csrf=csrf).status_code == 303
    assert opened == []
    assert len(web.app.state.labelling.done("Ann")) == 40
    monkeypatch.undo()
    assert client(root).app.state.labelling.done("Ann") == set(range(1, 41))  # the file, on restart
