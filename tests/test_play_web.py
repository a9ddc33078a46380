"""The web table: the websocket protocol, the server's checks and clean-up, a load test, and the
page itself in a real headless browser (Debian's chromium driven by Playwright)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
import urllib.request
from pathlib import Path

import pytest

for _module in ("starlette", "uvicorn", "websockets"):  # the web table's dependencies (pyproject's play extra)
    pytest.importorskip(_module, reason=f"{_module} is not installed: the web table needs it")

from agents import make  # noqa: E402
from envs.skat.env import raw_env as skat_env  # noqa: E402
from envs.thirtyone.env import raw_env as thirtyone_env  # noqa: E402
from play.core import agent_seed  # noqa: E402
from tests.play_web_helpers import Client, running_server  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("ARTIFACTS_DIR", ROOT / "tests" / "artifacts"))


def get_json(host: str, path: str):
    with urllib.request.urlopen(f"http://{host}{path}", timeout=10) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def server():
    with running_server(table_timeout=60.0) as (host, app):
        yield host, app


# --- the protocol, without a browser ------------------------------------------------------------
def test_setup_lists_only_server_side_opponents(server):
    host, _ = server
    setup = get_json(host, "/api/setup")
    skat_ids = [o["id"] for o in setup["opponents"]["skat"]]
    assert skat_ids[:2] == ["random", "rule"] and "checkpoint:skat_ppo.pt" in skat_ids
    assert {o["name"] for o in setup["options"]["skat"]} == {"scoring", "kontra", "ramsch"}
    assert "num_players" in {o["name"] for o in setup["options"]["thirtyone"]}
    assert isinstance(setup["solver"], bool)


def test_illegal_move_over_the_websocket_is_refused(server):
    host, app = server
    c = Client(host)
    try:
        s = c.ask(type="new", game="skat", options={}, opponents=["rule", "random"], seed=21)
        assert s["type"] == "state" and s["view"]["to_act"] == 0
        table = app.state.tables.get(s["table"])
        moves_before, view_before = list(table.deal.moves), s["view"]
        legal = {m["action"] for m in s["view"]["legal"]}
        illegal = next(a for a in range(162) if a not in legal)
        for bad in (illegal, 161, -5, "pass", None, 1.5, [1]):
            r = c.ask(type="move", action=bad)
            assert r["type"] == "error" and {m["action"] for m in r["legal"]} == legal
            assert r["view"] == view_before  # the table stays as it was
        assert table.deal.moves == moves_before
        r = c.ask(type="move", action=sorted(legal)[0])  # and it still plays
        assert r["type"] == "state" and len(table.deal.moves) > len(moves_before)
        for msg, fragment in (({"type": "bogus"}, "unknown message"), ({"type": "next"}, "not over"),
                              ({"type": "replay", "deal": 1}, "no finished deal")):
            assert fragment in c.ask(**msg)["message"]
    finally:
        c.close()


@pytest.mark.parametrize("msg, fragment", [
    ({"game": "skat", "opponents": ["checkpoints/skat_ppo.pt", "rule"]}, "unknown opponent"),
    ({"game": "skat", "opponents": ["agents.random_agent:RandomAgent", "rule"]}, "unknown opponent"),
    ({"game": "skat", "opponents": ["rule"]}, "each of the 2 other seats"),
    ({"game": "skat", "options": {"scoring": "bogus"}, "opponents": ["rule", "rule"]}, "scoring"),
    ({"game": "skat", "options": {"render_mode": "human"}, "opponents": ["rule", "rule"]}, "unknown Skat table option"),
    ({"game": "thirtyone", "options": {"num_players": 2, "lives": 0}, "opponents": ["rule"]}, "lives"),
    ({"game": "chess", "opponents": []}, "unknown game"),
])
def test_bad_tables_are_refused(server, msg, fragment):
    host, app = server
    n = len(app.state.tables.tables)
    c = Client(host)
    try:
        r = c.ask(type="new", **msg)
        assert r["type"] == "error" and fragment in r["message"]
        assert len(app.state.tables.tables) == n
    finally:
        c.close()


def test_tables_are_isolated_and_abandoned_ones_cleaned_up():
    with running_server(table_timeout=0.3, reap_every=0.1) as (host, app):
        a, b = Client(host), Client(host)
        sa = a.ask(type="new", game="skat", options={}, opponents=["rule", "rule"], seed=1)
        sb = b.ask(type="new", game="thirtyone", options={"num_players": 2}, opponents=["random"], seed=1)
        assert sa["table"] != sb["table"] and get_json(host, "/api/stats")["tables"] == 2
        assert b.ask(type="join", table=sa["table"])["view"]["game"] == "skat"  # a second tab of the same table
        b.ask(type="join", table=sb["table"])
        a.close()
        assert wait_tables(host, 1) == 1  # a's table went; b is still connected to its own
        time.sleep(0.5)
        assert get_json(host, "/api/stats")["tables"] == 1
        assert "no such table" in b.ask(type="join", table=sa["table"])["message"]
        b.close()
        assert wait_tables(host, 0) == 0


def wait_tables(host: str, n: int, seconds: float = 5.0) -> int:
    deadline = time.monotonic() + seconds
    while (left := get_json(host, "/api/stats")["tables"]) != n and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_downloads_of_a_finished_deal(server):
    from envs.skat import iss

    host, _ = server
    c = Client(host)
    try:
        s = c.ask(type="new", game="skat", options={}, opponents=["rule", "rule"], seed=4)
        while not s["view"]["over"]:
            s = c.ask(type="move", action=s["view"]["legal"][-1]["action"])
        tid, n = s["table"], s["view"]["deal"]
        with urllib.request.urlopen(f"http://{host}/api/tables/{tid}/deals/{n}.iss", timeout=10) as r:
            assert "attachment" in r.headers["Content-Disposition"]
            game = iss.replay(r.read().decode())
        data = get_json(host, f"/api/tables/{tid}/deals/{n}.json")
        assert data["result"]["scores"] == s["view"]["result"]["scores"]
        assert game.reason == "passed in" or game.declarer_points == data["result"]["declarer_points"]
        rp = c.ask(type="replay", deal=n)
        assert rp["frames"][0]["caption"] == "the deal" and all(len(h) == 10 for h in rp["frames"][0]["hands"])
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"http://{host}/api/tables/nope/deals/1.json", timeout=10)
    finally:
        c.close()


# --- load: 50 tables at once ---------------------------------------------------------------------
async def _play_table(host: str, k: int) -> int:
    from websockets.asyncio.client import connect

    async with connect(f"ws://{host}/ws") as ws:
        async def ask(**msg):
            await ws.send(json.dumps(msg))
            reply = json.loads(await ws.recv())
            assert reply["type"] == "state", reply
            return reply

        if k % 2:
            s = await ask(type="new", game="skat", options={"kontra": True}, opponents=["rule", "random"], seed=k)
        else:
            s = await ask(type="new", game="thirtyone", options={"num_players": 2, "lives": 1},
                          opponents=["rule"], seed=k)
        moves = 0
        while not s["view"]["over"]:
            legal = s["view"]["legal"]
            s = await ask(type="move", action=legal[(k + moves) % len(legal)]["action"])
            moves += 1
        return moves


def test_load_fifty_tables_at_once():
    """50 scripted persons at 50 tables at once on loopback, every game played to its end, no error;
    after they leave, every table is removed, nothing keeps one alive, and the server's memory is
    back near its start.

    "Start" is the server after a small warm-up wave (10 tables): the first tables of a process load
    the agents' code and grow the allocator's per-thread arenas and the worker threads' stacks.
    Bounded: one wave of 50 leaves less than 32 MB over that, a second wave of 50 less than 16 MB
    more; the exact check for a leak is that no table object of the 110 survives."""
    import gc
    import weakref

    with running_server(table_timeout=0.2, reap_every=0.1) as (host, app):
        made: list[weakref.ref] = []
        create = app.state.tables.create

        def watched_create(*args):
            tid, table = create(*args)
            made.append(weakref.ref(table))
            return tid, table

        app.state.tables.create = watched_create

        def wave(n):
            async def run():
                return await asyncio.gather(*(_play_table(host, k) for k in range(n)))
            moves = asyncio.run(run())
            wait_tables(host, 0)
            time.sleep(0.4)  # the reaper trims the freed memory right after removing the tables
            return moves, get_json(host, "/api/stats")

        _, start = wave(10)
        t0 = time.monotonic()
        moves, first = wave(50)
        elapsed = time.monotonic() - t0
        _, second = wave(50)
        gc.collect()
        alive = sum(r() is not None for r in made)
    assert len(moves) == 50 and all(m > 0 for m in moves)
    assert first["tables"] == 0 and second["tables"] == 0  # every table cleaned up once its client left
    assert len(made) == 110 and alive == 0
    print(f"50 tables, {sum(moves)} moves of the scripted persons in {elapsed:.1f}s; rss after warm-up "
          f"{start['rss_kb']} kB, after 50 tables {first['rss_kb']} kB, after 50 more {second['rss_kb']} kB")
    assert first["rss_kb"] - start["rss_kb"] < 32_000
    assert second["rss_kb"] - first["rss_kb"] < 16_000


# --- the page in a real browser ------------------------------------------------------------------
def _browser_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def page(server):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    path = _browser_path()
    if path is None:
        pytest.skip("no chromium found (apt-get install -y chromium): the browser tests need a real browser")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, headless=True)
        pg = browser.new_page(viewport={"width": 1000, "height": 800})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(f"http://{server[0]}/")
        pg.wait_for_selector("#seats select")
        yield pg
        browser.close()
        assert not errors, errors


def _start(pg, game: str, seed: int, opponents: list[str], options: dict[str, str] | None = None) -> None:
    if pg.is_visible("#result"):
        pg.click("#close-result")
    pg.click("#new-table-btn")
    pg.select_option("#game", game)
    for name, label in (options or {}).items():
        pg.select_option(f'[data-option="{name}"]', label=label)
    for i, opp in enumerate(opponents, 1):
        pg.select_option(f'[data-seat="{i}"]', opp)
    pg.fill("#seed", str(seed))
    count = pg.get_attribute("body", "data-messages") or "0"
    pg.click("#start")
    pg.wait_for_function(f"(document.body.dataset.messages || '0') !== '{count}'")


def _click_until_over(pg, choose) -> list[int]:
    """Click as a person does until the result shows; the actions clicked, in order."""
    clicked = []
    for _ in range(2000):
        if pg.is_visible("#round"):
            pg.click("#round-ok")
            continue
        if pg.is_visible("#result"):
            return clicked
        buttons = pg.query_selector_all("#actions button[data-action]")
        cards = pg.query_selector_all("#hand .card.legal")
        el = choose(buttons, cards, len(clicked))
        action = int(el.get_attribute("data-action"))
        count = pg.get_attribute("body", "data-messages")
        el.click()
        pg.wait_for_function(f"(document.body.dataset.messages || '0') !== '{count}'")
        clicked.append(action)
    raise AssertionError("the game did not end")


def test_a_whole_skat_deal_by_clicking(page):
    pg = page
    seed = 12
    _start(pg, "skat", seed, ["rule", "random"])

    def choose(buttons, cards, n):  # bid on, pick up, then the strongest card the page offers
        if buttons:
            return buttons[0]
        return cards[0]

    clicked = _click_until_over(pg, choose)
    assert clicked
    shown = {int(el.get_attribute("data-seat")): int(el.get_attribute("data-score"))
             for el in pg.query_selector_all("#result-scores [data-seat]")}
    # the env's result for the same seed, the same agents and the clicked moves (a fresh env)
    env = skat_env()
    env.reset(seed=seed)
    bots = {1: make("rule", game="skat", seed=agent_seed(seed, 1)), 2: make("random", game="skat",
                                                                             seed=agent_seed(seed, 2))}
    moves = iter(clicked)
    for agent in env.agent_iter():
        if env.terminations[agent]:
            break
        seat = int(agent[-1])
        env.step(next(moves) if seat == 0 else bots[seat].act(env.observe(agent)))
    assert next(moves, None) is None
    assert shown == {int(a[-1]): env.state.scores[env.position_of(a)] for a in env.possible_agents}
    assert pg.inner_text("#result-title")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "play_web_skat_result.png"))
    # replay trick by trick with all hands open
    pg.click("#replay-btn")
    pg.wait_for_selector("#replay:not([hidden])")
    assert len(pg.query_selector_all("#replay-body .replay-row[data-seat] .card")) == 30
    pg.click("#replay-next")
    pg.click("#replay-next")
    pg.screenshot(path=str(ARTIFACTS / "play_web_skat_replay.png"))
    pg.click("#replay-close")
    # the German deck is a setting
    pg.click("#close-result")
    pg.select_option("#suit-style", "german")
    pg.screenshot(path=str(ARTIFACTS / "play_web_skat_german.png"))
    pg.select_option("#suit-style", "french")


def test_a_whole_thirtyone_game_by_clicking(page):
    pg = page
    seed = 3
    _start(pg, "thirtyone", seed, ["rule"], {"num_players": "2", "lives": "1"})

    def choose(buttons, cards, n):  # draw or take, then throw the first card away; knock now and then
        if cards:
            return cards[n % len(cards)]
        return buttons[-1] if n % 7 == 6 else buttons[0]

    clicked = _click_until_over(pg, choose)
    winner = int(pg.get_attribute("#result-winner", "data-seat"))
    env = thirtyone_env(num_players=2, lives=1, episode="game")
    env.reset(seed=seed)  # game 1 of a table seeded S is reset with S (play.thirtyone)
    bot = make("rule", game="thirtyone", seed=agent_seed(seed, 1))
    moves = iter(clicked)
    for agent in env.agent_iter():
        if env.terminations[agent]:
            env.step(None)
            continue
        env.step(next(moves) if agent == "player_0" else bot.act(env.observe(agent)))
    assert next(moves, None) is None
    returns = env.game_state.returns()
    assert winner == returns.index(max(returns))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "play_web_thirtyone_result.png"))


def test_phone_sized_screen(page, server):
    pg = page
    pg.set_viewport_size({"width": 390, "height": 800})
    try:
        _start(pg, "skat", 30, ["rule", "rule"])
        pg.wait_for_selector("#hand .card")
        width = pg.evaluate("document.documentElement.scrollWidth")
        assert width <= 392  # nothing wider than the phone
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(ARTIFACTS / "play_web_phone.png"))
    finally:
        pg.set_viewport_size({"width": 1000, "height": 800})
