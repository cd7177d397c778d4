"""The viewer's pages through the ASGI app: listing, paging, filters, live files, escaping, the token."""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from proseval.view import create_app
from view.view_fixtures import HOSTILE, record, results, write_run

LOCAL = "http://127.0.0.1"


def client(root: Path, **options) -> TestClient:
    return TestClient(create_app(root, **options), base_url=LOCAL)


def rows(html: str, table: str = "samples") -> list[str]:
    body = html.split(f'id="{table}"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr>(.*?)</tr>", body, re.S)


def sample_ids(html: str) -> list[str]:
    return [re.findall(r'/sample\?id=[^"]*">([^<]+)</a>', row)[0] for row in rows(html)]


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """120 records: every 7th failed, every 5th with an unscored score."""
    records = []
    for n in range(120):
        if n % 7 == 0:
            records.append(record(n, status="error", error="request failed", scores={}, state=None))
        elif n % 5 == 0:
            records.append(
                record(
                    n,
                    scores={
                        "quality": {
                            "value": None,
                            "explanation": "unparsable",
                            "parse_status": "unparsable",
                            "metadata": {},
                        }
                    },
                )
            )
        else:
            records.append(record(n))
    write_run(tmp_path / "runs" / "big", records, results=results("big", 120))
    return tmp_path / "runs"


def test_the_run_list_shows_each_run_with_task_models_status_counts_and_headline(runs_dir: Path):
    page = client(runs_dir).get("/")
    assert page.status_code == 200
    listed = rows(page.text, "runs")
    assert len(listed) == 5
    demo = next(r for r in listed if ">demo<" in r)
    assert "scripted/view-candidate" in demo and "scripted/view-judge" in demo
    assert 'class="badge complete"' in demo
    cells = re.findall(r'<td class="n">([^<]*)</td>', demo)
    assert cells == ["4 / 4", "4", "0", "0"]  # finished / total, scored, unscored, failed
    assert re.search(r"quality <b [^>]*>8</b>", demo)  # the task's headline metric (demo: the judge's rating)
    ravel = next(r for r in listed if ">ravel<" in r)
    assert "scripted/view-ravel-judge" in ravel


def test_a_run_being_written_is_running_and_its_counts_come_from_the_records(big: Path):
    folder = big / "big"
    (folder / "results.json").unlink()
    (folder / ".lock").write_text(f"pid {os.getpid()} on {socket.gethostname()}, since now", encoding="utf-8")
    listed = rows(client(big).get("/").text, "runs")[0]
    assert 'class="badge running"' in listed
    # 120 records: 18 failed (n % 7 == 0), 20 unscored (n % 5 == 0 and not failed), 82 scored
    assert re.findall(r'<td class="n">([^<]*)</td>', listed) == ["120", "82", "20", "18"]
    (folder / ".lock").write_text("", encoding="utf-8")  # the writer finished without results: interrupted
    assert 'class="badge interrupted"' in client(big).get("/").text


def test_a_dead_writer_means_interrupted(big: Path):
    (big / "big" / "results.json").unlink()
    (big / "big" / ".lock").write_text(f"pid 999999999 on {socket.gethostname()}, since then", encoding="utf-8")
    assert 'class="badge interrupted"' in client(big).get("/").text


def test_the_sample_table_is_paged(big: Path):
    web = client(big)
    first = web.get("/runs/big")
    assert sample_ids(first.text) == [f"s{n:05d}" for n in range(50)]
    assert "120 samples · page 1 of 3" in first.text
    last = web.get("/runs/big?page=3")
    assert sample_ids(last.text) == [f"s{n:05d}" for n in range(100, 120)]
    assert sample_ids(web.get("/runs/big?page=2&per=10").text) == [f"s{n:05d}" for n in range(10, 20)]
    assert sample_ids(web.get("/runs/big?page=99").text) == []
    assert web.get("/runs/big?page=abc").status_code == 200  # a bad number is the default


def test_filters_by_status_slice_score_range_and_id(big: Path):
    web = client(big)
    failed = sample_ids(web.get("/runs/big?status=failed").text)
    assert failed == [f"s{n:05d}" for n in range(0, 120, 7)]
    unscored = sample_ids(web.get("/runs/big?status=unscored&per=100").text)
    assert unscored == [f"s{n:05d}" for n in range(120) if n % 5 == 0 and n % 7]
    french = web.get("/runs/big?s.language=fr&s.domain=d1&per=100")
    assert sample_ids(french.text) == [f"s{n:05d}" for n in range(120) if n % 2 == 0 and n % 3 == 1]
    assert "20 samples match" in french.text
    ranged = sample_ids(web.get("/runs/big?metric=quality&min=8&max=9&per=100").text)
    assert ranged == [f"s{n:05d}" for n in range(120) if n % 10 in (8, 9) and n % 7 and n % 5]
    assert sample_ids(web.get("/runs/big?q=S0011").text) == [f"s{n:05d}" for n in range(110, 120)]
    paged = web.get("/runs/big?status=scored&page=2&per=50")
    assert sample_ids(paged.text)[0] == [f"s{n:05d}" for n in range(120) if n % 7 and n % 5][50]
    assert "status=scored" in paged.text.split('rel="prev"', 1)[1][:200]  # the pager keeps the filter
    # the filter form offers the slice values the records carry
    form = web.get("/runs/big").text.split('id="filters"', 1)[1].split("</form>", 1)[0]
    assert 'name="s.language"' in form and "<option>fr</option>" in form


def test_a_half_written_last_line_is_left_out_until_it_is_complete(big: Path):
    samples = big / "big" / "samples.jsonl"
    (big / "big" / "results.json").unlink()
    line = json.dumps(record(120))
    with samples.open("a", encoding="utf-8") as handle:
        handle.write(line[:40])
    web = client(big)
    assert "120 samples" in web.get("/runs/big").text
    assert web.get("/runs/big/samples/121").status_code == 404
    assert web.get("/runs/big/samples/120").status_code == 200
    with samples.open("a", encoding="utf-8") as handle:  # the writer finishes the line: the same app sees it
        handle.write(line[40:] + "\n")
    assert "121 samples" in web.get("/runs/big").text
    assert ">s00120<" in web.get("/runs/big/samples/121").text


def test_a_rewritten_samples_file_is_indexed_afresh(big: Path):
    web = client(big)
    assert "120 samples" in web.get("/runs/big").text
    samples = big / "big" / "samples.jsonl"
    kept = samples.read_text(encoding="utf-8").splitlines(keepends=True)[::2]
    replacement = samples.with_suffix(".tmp")
    replacement.write_text("".join(kept), encoding="utf-8")
    os.replace(replacement, samples)  # as resume --retry-failed does
    assert "60 samples" in web.get("/runs/big").text
    assert ">s00002<" in web.get("/runs/big/samples/2").text


HOSTILE_RECORD = record(
    1,
    id=f"id{HOSTILE}",
    input=f"input {HOSTILE}",
    metadata={"language": HOSTILE},
    state={
        "messages": [{"role": "user", "content": HOSTILE}],
        "output": f"out {HOSTILE}",
        "turns": [{"note": HOSTILE}],
        "metadata": {},
    },
    target={"draft": f"draft {HOSTILE}"},
    scores={
        "quality": {
            "value": 1.0,
            "explanation": f"judge said {HOSTILE}",
            "parse_status": "ok",
            "metadata": {"raw": HOSTILE},
        }
    },
)


def test_text_from_a_run_is_escaped_everywhere(tmp_path: Path):
    # A Revision Distance run: its own view (the draft → revision diff, by the task's hook) is escaped too.
    write_run(tmp_path / "runs" / "evil", [HOSTILE_RECORD], task="revision-distance")
    web = client(tmp_path / "runs")
    for url in ("/", "/runs/evil", "/runs/evil?s.language=x", "/runs/evil/samples/1"):
        html = web.get(url).text
        assert "<script>alert" not in html and "<img src=x" not in html, url
    sample = web.get("/runs/evil/samples/1").text
    assert "judge said &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in sample
    assert sample.count("&lt;img src=x onerror=alert(1)&gt;") >= 6  # id, input, message, output, turn, raw, ...
    assert "<del>draft &lt;script&gt;" not in sample and "&lt;script&gt;" in sample.split("Draft → revision")[1]


def test_every_response_carries_a_strict_content_security_policy(runs_dir: Path):
    web = client(runs_dir)
    for url in ("/", "/runs/nothing", "/static/view.css"):
        headers = web.get(url).headers
        assert "script-src 'self'" in headers["content-security-policy"], url
        assert "default-src 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
    html = web.get("/").text
    assert '<script src="/static/view.js"' in html and "<style" not in html and " style=" not in html
    assert "http://" not in html.replace("http://127.0.0.1", "") and "https://" not in html  # nothing remote


def test_a_host_other_than_loopback_needs_a_token(runs_dir: Path):
    with pytest.raises(ValueError, match="without a token"):
        create_app(runs_dir, host="0.0.0.0")
    web = client(runs_dir, host="0.0.0.0", token="s3cret-token")
    assert web.get("/").status_code == 401
    assert web.get("/static/view.css").status_code == 401
    assert web.get("/?token=wrong").status_code == 403
    entered = web.get("/runs/nothing?token=s3cret-token&page=2", follow_redirects=False)
    assert entered.status_code == 303 and entered.headers["location"] == "/runs/nothing?page=2"
    assert (
        "httponly" in entered.headers["set-cookie"].lower()
        and "samesite=strict" in entered.headers["set-cookie"].lower()
    )
    assert web.get("/").status_code == 200  # the cookie from now on
    web.cookies.clear()
    assert web.get("/").status_code == 401


def test_on_loopback_only_requests_for_a_loopback_name_are_served(runs_dir: Path):
    app = create_app(runs_dir)
    for base in ("http://127.0.0.1:8765", "http://localhost", "http://[::1]:8765"):
        assert TestClient(app, base_url=base).get("/").status_code == 200, base
    assert TestClient(app, base_url="http://attacker.example").get("/").status_code == 421


def test_unknown_runs_lines_and_files_are_not_found(runs_dir: Path, built_runs):
    web = client(runs_dir)
    demo = built_runs["demo"].name
    assert web.get("/runs/missing").status_code == 404
    assert web.get("/runs/%2E%2E").status_code == 404
    assert web.get(f"/runs/{demo}/samples/0").status_code == 404
    assert web.get(f"/runs/{demo}/samples/5").status_code == 404
    assert web.get(f"/runs/{demo}/files/header.json").status_code == 404
    ravel = built_runs["ravel"].name
    chart = web.get(f"/runs/{ravel}/files/ravel_lifecycles.png")
    assert chart.status_code == 200 and chart.content[:4] == b"\x89PNG"
    assert f"/runs/{ravel}/files/ravel_lifecycles.png" in web.get(f"/runs/{ravel}").text


def test_a_judged_sample_shows_its_conversation_output_and_scores(runs_dir: Path, built_runs):
    html = client(runs_dir).get(f"/runs/{built_runs['demo'].name}/samples/1").text
    assert html.count('<li class="message') == 2
    assert '<details class="explanation"><summary>explanation</summary>' in html
    assert "17 words for a target of 120" in html
    # The judge's reply, word for word (escaped), from the record's calls.
    calls = html.split('<ol class="calls" id="calls">', 1)[1].split("</ol>", 1)[0]
    assert "<summary>judge · judge · stop" in calls
    assert "Reasoning: clear and vivid &lt;b&gt;bold&lt;/b&gt;." in calls


def test_per_criterion_verdicts_and_raw_judge_answers_are_listed(tmp_path: Path):
    verdicts = {
        "clarity": {"score": 7, "reason": "clear <b>enough</b>", "status": "ok"},
        "depth": {"score": None, "status": "unparsable", "error": "no JSON", "raw": "I think 7?"},
    }
    judged = record(
        1,
        scores={
            "score": {
                "value": 7.0,
                "explanation": "1 of 2 criteria scored",
                "parse_status": "partial",
                "metadata": {"criteria": verdicts},
            }
        },
    )
    write_run(tmp_path / "runs" / "wb", [judged], task="writingbench")  # drawn by WritingBench's views hook
    html = client(tmp_path / "runs").get("/runs/wb/samples/1").text
    table = html.split("<h2>Criteria (score): 2</h2>", 1)[1].split('<table class="grid criteria">', 1)[1]
    table = table.split("</table>", 1)[0]
    assert re.findall(r"<tr><td>(\w+)</td><td(?: class=\"n\")?>([^<]+)</td><td>(\w+)</td>", table) == [
        ("clarity", "7", "ok"),
        ("depth", "–", "unparsable"),
    ]
    assert "clear &lt;b&gt;enough&lt;/b&gt;" in table and "no JSON" in table
    assert 'judge\'s raw answer (depth: raw)</summary><pre class="text">I think 7?</pre>' in html


def test_revision_distance_edits_are_marked_in_the_draft(runs_dir: Path, built_runs):
    html = client(runs_dir).get(f"/runs/{built_runs['revision'].name}/samples/1").text
    edited = html.split('<pre class="text edited">', 1)[1].split("</pre>", 1)[0]
    assert edited == ("<mark>The cat sat on the mat</mark>. It was <mark>big</mark> &lt;script&gt;x&lt;/script&gt;.")
    table = html.split('class="grid edits"', 1)[1]
    assert re.findall(r"<td>(yes|no)", table) == ["yes", "yes", "no"]  # the elephant is not in the draft
    pairs = client(runs_dir).get(f"/runs/{built_runs['pairs'].name}/samples/1").text
    assert "Edits (distance_chosen): 0" in pairs and "Edits (distance_rejected): 0" in pairs


def test_a_draft_and_its_revision_are_diffed_word_by_word(tmp_path: Path):
    revised = record(
        1,
        target={"task": "edit", "input": {"content": "The old bridge stood here.", "critique": "say more"}},
        state={"messages": [], "output": "The ancient bridge still stood here.", "turns": [], "metadata": {}},
    )
    write_run(tmp_path / "runs" / "edit", [revised], task="c3ebench")  # a C3EBench Edit item: its views hook
    html = client(tmp_path / "runs").get("/runs/edit/samples/1").text
    diff = html.split("Draft → revision", 1)[1].split('<pre class="diff">', 1)[1].split("</pre>", 1)[0]
    assert diff == "The <del>old</del><ins>ancient</ins> bridge<ins> still</ins> stood here."


def test_meeseeks_rounds_are_side_by_side_with_their_checks(runs_dir: Path, built_runs):
    html = client(runs_dir).get(f"/runs/{built_runs['meeseeks'].name}/samples/1").text
    rounds = html.split('id="rounds"', 1)[1].split('<section class="round">')[1:]
    assert len(rounds) == 2
    assert "on the quiet town" in rounds[0] and "on my red umbrella" in rounds[1]
    assert '<tr class="failed"><td>Does the poem contain the word umbrella?' in rounds[0]
    assert '<tr class="passed"><td>Does the poem contain the word umbrella?' in rounds[1]
    assert "<del>the quiet town</del><ins>my red umbrella</ins>" in rounds[1]


def test_a_ravel_trajectory_shows_each_step_with_the_manuscript_after_it(runs_dir: Path, built_runs):
    html = client(runs_dir).get(f"/runs/{built_runs['ravel'].name}/samples/1").text
    steps = html.split('id="trajectory"', 1)[1].split('<section class="step')[1:]
    assert len(steps) == 8
    assert "Step 1: outline" in steps[0] and "(nothing written yet)" in steps[0]
    assert "Manuscript after step 2" in steps[1] and "## Water\n\nWater text." in steps[1]
    refine = steps[5]
    assert "Step 6: refine section 1" in refine
    assert "Ice text<ins>, revised: it floats because it is less dense</ins>." in refine
    assert "say why ice floats" in steps[4]
    assert "Ice text, revised: it floats because it is less dense." in steps[7]


def test_an_unreadable_line_is_shown_as_such(tmp_path: Path):
    folder = write_run(tmp_path / "runs" / "odd", [record(0)])
    with (folder / "samples.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("not json\n")
    web = client(tmp_path / "runs")
    assert "unreadable line" in web.get("/runs/odd").text
    assert web.get("/runs/odd/samples/2").status_code == 422
    (folder / "header.json").write_text("{", encoding="utf-8")
    broken = web.get("/runs/odd")
    assert broken.status_code == 422 and "invalid header" in broken.text
    assert "invalid header" in web.get("/").text


def test_a_link_by_id_survives_a_rewritten_samples_file(tmp_path: Path):
    """Line links are positions; id links find the sample wherever it is, choose the record the
    results count when a sample has several (finished before failed, then the later), and escape
    ids that are not URL-safe."""
    odd = "a&b #1/é"
    records = [
        record(0),
        record(1, status="error", error="timeout", scores={}),
        record(2),
        record(1),
        record(3, id=odd),
        record(2, scores={"quality": {"value": 9.0, "explanation": "again", "parse_status": "ok", "metadata": {}}}),
    ]
    folder = write_run(tmp_path / "runs" / "r", records)
    web = client(tmp_path / "runs")
    listed = web.get("/runs/r").text
    assert '/sample?id=a%26b%20%231/%C3%A9&amp;epoch=0">a&amp;b #1/é</a>' in listed
    assert ">a&amp;b #1/é<" in web.get("/runs/r/sample", params={"id": odd}).text
    retried = web.get("/runs/r/sample?id=s00001&epoch=0").text  # the finished record, not the failed one
    assert "Answer 1." in retried and "timeout" not in retried
    assert "again" in web.get("/runs/r/sample?id=s00002").text  # the later of two finished records
    before = web.get("/runs/r/samples/3").text
    assert ">s00002<" in before.split('id="sample-id"', 1)[1][:20]
    samples = folder / "samples.jsonl"
    kept = samples.read_text(encoding="utf-8").splitlines(keepends=True)
    replacement = samples.with_suffix(".tmp")
    replacement.write_text("".join(reversed(kept)), encoding="utf-8")
    os.replace(replacement, samples)
    assert ">s00000<" in web.get("/runs/r/sample?id=s00000").text.split('id="sample-id"', 1)[1][:20]
    assert web.get("/runs/r/samples/3").text != before  # the line moved; the id link did not
    assert web.get("/runs/r/sample?id=s00009").status_code == 404
    assert web.get("/runs/r/sample?id=s00000&epoch=1").status_code == 404
    permalink = re.search(r'id="permalink" href="([^"]+)"', web.get("/runs/r/samples/1").text).group(1)
    assert web.get(permalink.replace("&amp;", "&")).status_code == 200
