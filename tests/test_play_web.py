"""The web table: the websocket protocol, the server's checks and clean-up, a load test, and the
page itself in a real headless browser (Debian's chromium driven by Playwright)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
import urllib.parse
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
def test_setup_lists_games_variants_options_and_server_side_opponents(server):
    host, _ = server
    setup = get_json(host, "/api/setup")
    assert setup["games"] == ["skat", "thirtyone"]
    skat, t31 = setup["setup"]["skat"], setup["setup"]["thirtyone"]
    skat_ids = [o["id"] for o in skat["opponents"]]
    assert skat_ids[:3] == ["random", "rule", "pimc"] and "checkpoint:skat_ppo.pt" in skat_ids
    assert {"scoring", "kontra", "ramsch", "players", "supra", "pack"} <= {o["name"] for o in skat["options"]}
    assert "dealer" not in {o["name"] for o in skat["options"]}
    assert {"four_player", "strohmann", "sechserskat"} <= {v["name"] for v in skat["variants"]}
    assert {"banking", "stop_the_bus", "switch"} <= {v["name"] for v in t31["variants"]}
    assert "num_players" in {o["name"] for o in t31["options"]} and "episode" not in {o["name"] for o in t31["options"]}


@pytest.mark.parametrize("game, options, seats, fitting", [
    ("skat", {}, 3, {"random", "rule", "pimc", "checkpoint:skat_ppo.pt", "checkpoint:skat_ppo_bc.pt",
                     "checkpoint:skat_ppo_rule.pt", "checkpoint:skat_nfsp.pt", "checkpoint:skat_dmc.pt",
                     "checkpoint:skat_exit.pt", "checkpoint:skat_exit_dagger.pt"}),
    ("skat", {"variant": "four_player"}, 4, {"random", "rule"}),
    ("skat", {"variant": "strohmann"}, 2, {"random", "rule"}),
    # search plays every Thirty-One table (the rule agent's move where its world sampler does not reach)
    ("thirtyone", {"variant": "banking", "num_players": 3}, 3, {"random", "rule", "search"}),
    ("thirtyone", {"num_players": 2}, 2, {"random", "rule", "search", "checkpoint:thirtyone_ppo.pt",
                                          "checkpoint:thirtyone_ppo_bc.pt", "checkpoint:thirtyone_nfsp.pt",
                                          "checkpoint:thirtyone_dmc.pt"}),
])
def test_the_shape_of_a_table_and_who_fits_it(server, game, options, seats, fitting):
    host, _ = server
    q = urllib.parse.urlencode({"game": game, "options": json.dumps(options)})
    shape = get_json(host, f"/api/shape?{q}")
    assert shape["ok"] and shape["seats"] == seats and set(shape["fitting"]) == fitting


@pytest.mark.parametrize("game, options, fragment", [
    ("skat", {"players": 5}, "'players' must be 2, 3 or 4"),
    ("skat", {"variant": "nope"}, "valid variants"),
    ("skat", {"dealer": 1}, "unknown Skat table option"),
    ("thirtyone", {"ranking": "poker"}, "ranking must be one of"),
    ("chess", {}, "unknown game"),
])
def test_the_env_checks_the_options_the_page_sends(server, game, options, fragment):
    host, _ = server
    q = urllib.parse.urlencode({"game": game, "options": json.dumps(options)})
    shape = get_json(host, f"/api/shape?{q}")
    assert not shape["ok"] and fragment in shape["error"]


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
    ({"game": "skat", "options": {"variant": "four_player"}, "opponents": ["pimc", "rule", "rule"]}, "pimc plays"),
    ({"game": "skat", "options": {"variant": "four_player"}, "opponents": ["checkpoint:skat_ppo.pt", "rule", "rule"]},
     "trained on a table"),
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
        assert rp["frames"][0]["caption"] == "the deal"
        assert [len(r["cards"]) for r in rp["frames"][0]["rows"]] == [10, 10, 10, 2]
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
    Bounded: one wave of 50 leaves less than 32 MB over that, a second wave of 50 no more than the first
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
    assert second["rss_kb"] - first["rss_kb"] < 32_000  # no steady growth: a second wave adds no more than the first


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


def _wait_message(pg, count: str) -> None:
    pg.wait_for_function(f"(document.body.dataset.messages || '0') !== '{count}'")


def _start(pg, game: str, seed: int, opponents: list[str], variant: str | None = None,
           options: dict[str, str] | None = None) -> None:
    """Set a table up as a person does: game, variant, options (by their labels), opponents, seed."""
    if pg.is_visible("#result"):
        pg.click("#close-result")
    pg.click("#new-table-btn")
    pg.select_option("#game", game)
    if variant:
        pg.select_option("#variant", variant)
    if options:
        pg.click("#options-box summary")
        for name, label in options.items():
            el = f'[data-option="{name}"]'
            if pg.get_attribute(el, "type") == "text":
                pg.fill(el, label)
                pg.dispatch_event(el, "change")
            else:
                pg.select_option(el, label=label)
    pg.wait_for_function(f"document.querySelectorAll('#seats select').length === {len(opponents)}"
                         " && !document.getElementById('start').disabled")
    for i, opp in enumerate(opponents, 1):
        pg.select_option(f'[data-seat="{i}"]', opp)
    pg.fill("#seed", str(seed))
    count = pg.get_attribute("body", "data-messages") or "0"
    pg.click("#start")
    _wait_message(pg, count)


def _click_until_over(pg, choose) -> list[int]:
    """Click as a person does until the result shows; the actions clicked, in order. ``choose``
    gets the clickable buttons and cards and the number of clicks so far, and returns an element,
    or an action (a bid beyond the buttons is chosen in the "higher..." list)."""
    clicked = []
    for _ in range(2000):
        if pg.is_visible("#round"):
            pg.click("#round-ok")
            continue
        if pg.is_visible("#result"):
            return clicked
        buttons = pg.query_selector_all("#actions button[data-action]")
        cards = pg.query_selector_all("#hand .card.legal, #center .card.legal")
        el = choose(buttons, cards, len(clicked))
        count = pg.get_attribute("body", "data-messages")
        if isinstance(el, int):
            action = el
            el = pg.query_selector(f'#actions [data-action="{action}"], #hand .card.legal[data-action="{action}"]')
            if el is None:
                pg.select_option("#more-bids", str(action))
        else:
            action = int(el.get_attribute("data-action"))
        if el is not None:
            el.click()
        _wait_message(pg, count)
        clicked.append(action)
    raise AssertionError("the game did not end")


def _replay_skat(options: dict, seed: int, specs: list[str], clicked: list[int]):
    """The env's deal for the same seed, the same agents and the clicked moves (a fresh env)."""
    env = skat_env(**options)
    env.reset(seed=seed)
    bots = {i + 1: make(s, game="skat", seed=agent_seed(seed, i + 1)) for i, s in enumerate(specs)}
    moves = iter(clicked)
    for agent in env.agent_iter():
        if env.terminations[agent]:
            break
        seat = int(agent[-1])
        env.step(next(moves) if seat == 0 else bots[seat].act(env.observe(agent)))
    assert next(moves, None) is None
    return env


def test_a_four_player_skat_deal_by_clicking_and_the_solver_answer(page, server):
    """Skat's four-player table: the person (forehand; the fourth seat deals and sits out) clicks
    what the rule agent would play in its seat; the result is the env's; then "could the declarer
    have won?" is answered by the double-dummy solver on the page, with the winning line (in this
    deal the declarer lost a game the solver says was won)."""
    from envs.skat.solver import Position, Solver

    pg = page
    seed, specs = 13, ["rule", "rule", "rule"]
    _start(pg, "skat", seed, specs, variant="four_player")
    assert len(pg.query_selector_all("#opponents .seat")) == 3 and "sitting out" in pg.inner_text("#opponents")
    tables = server[1].state.tables
    person = make("rule", game="skat", seed=0)

    def choose(buttons, cards, n):  # what the rule agent would play: the person reads the table it sees
        table = tables.get(pg.evaluate("sessionStorage.getItem('table')"))
        return int(person.act(table.env.observe("player_0")))

    clicked = _click_until_over(pg, choose)
    shown = {int(el.get_attribute("data-seat")): int(el.get_attribute("data-score"))
             for el in pg.query_selector_all("#result-scores [data-seat]")}
    env = _replay_skat({"variant": "four_player"}, seed, specs, clicked)
    assert shown == dict(enumerate(env.seat_scores()))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "play_web_skat4_result.png"))
    # the solver's answer, for the position at the first trick with every hand open
    assert pg.is_visible("#analyse") and pg.inner_text("#analyse") == "Could the declarer have won?"
    pg.click("#analyse")
    pg.wait_for_selector("#analysis[data-answer]")
    answer = pg.get_attribute("#analysis", "data-answer")
    assert answer in ("true", "false") and pg.inner_text("#analysis").startswith(("Yes:", "No:"))
    assert answer == "true" and "At the table" in pg.inner_text("#analysis")
    assert len(pg.query_selector_all("#analysis-line .line-trick")) == 10
    pg.screenshot(path=str(ARTIFACTS / "play_web_skat4_solver.png"))
    # the same answer from the solver itself, at the same position (rebuilt from the env's moves)
    start = _replay_until_play(env, clicked, seed, specs)
    c = start.contract
    ask = "schwarz" if c.schwarz or c.ouvert else "schneider" if c.schneider else "win"
    assert str(bool(Solver().value(Position.from_state(start), ask))).lower() == answer
    # replay trick by trick with all hands open
    pg.click("#replay-btn")
    pg.wait_for_selector("#replay:not([hidden])")
    assert len(pg.query_selector_all("#replay-body .replay-row .card")) == 32
    pg.click("#replay-next")
    pg.click("#replay-next")
    pg.screenshot(path=str(ARTIFACTS / "play_web_skat4_replay.png"))
    pg.click("#replay-close")
    # the German deck is a setting
    pg.click("#close-result")
    pg.select_option("#suit-style", "german")
    pg.screenshot(path=str(ARTIFACTS / "play_web_skat4_german.png"))
    pg.select_option("#suit-style", "french")


def _replay_until_play(env, clicked, seed, specs):
    """The rules state at the first trick of the same deal (a fresh env, the same moves)."""
    from envs.skat.rules import PLAY

    fresh = skat_env(variant="four_player")
    fresh.reset(seed=seed)
    bots = {i + 1: make(s, game="skat", seed=agent_seed(seed, i + 1)) for i, s in enumerate(specs)}
    moves = iter(clicked)
    while fresh.state.phase != PLAY:
        agent = fresh.agent_selection
        seat = int(agent[-1])
        fresh.step(next(moves) if seat == 0 else bots[seat].act(fresh.observe(agent)))
    return fresh.state


def test_a_stop_the_bus_game_by_clicking(page):
    """Thirty-One's Stop the Bus: pick a card of the face-up pool on the table, put a hand card in
    its place, or swap all three, by clicking; the winner on the page is the env's."""
    pg = page
    seed = 3
    _start(pg, "thirtyone", seed, ["rule"], variant="stop_the_bus", options={"num_players": "2", "lives": "1"})
    assert len(pg.query_selector_all("#center .card")) == 3 and "pool" in pg.inner_text("#center")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "play_web_stop_the_bus.png"))

    def choose(buttons, cards, n):  # pick a pool card, put the lowest back; swap now and then; knock late
        if n > 12 and buttons and n % 5 == 0:
            return buttons[0]
        if n % 7 == 3 and len(buttons) > 1:
            return buttons[-1]
        return cards[n % len(cards)] if cards else buttons[-1]

    clicked = _click_until_over(pg, choose)
    winner = int(pg.get_attribute("#result-winner", "data-seat"))
    env = thirtyone_env(variant="stop_the_bus", num_players=2, lives=1, episode="game")
    env.reset(seed=seed)  # game 1 of a table seeded S is reset with S
    bot = make("rule", game="thirtyone", seed=agent_seed(seed, 1))
    moves = iter(clicked)
    for agent in env.agent_iter():
        if env.terminations[agent]:
            env.step(None)
            continue
        env.step(next(moves) if agent == "player_0" else bot.act(env.observe(agent)))
    assert next(moves, None) is None
    st = env.state
    assert winner == st.alive.index(True)
    assert any(a >= 57 for a in clicked)  # table actions were clicked (picks, swaps)
    pg.screenshot(path=str(ARTIFACTS / "play_web_stop_the_bus_result.png"))


def test_the_sixes_and_the_phone_sized_screen(page, server):
    """Sechserskat's sixes have faces in both decks; a table fits a phone's width."""
    pg = page
    for style in ("french", "german"):
        svg = pg.evaluate(f"cardSVG('C6', '{style}')")
        assert svg.count("<g transform") == 6 + 2 * 2  # six pips and the two corners (a glyph each, rotated)
    pg.evaluate("""() => { const d = document.createElement('div'); d.id = 'sixes';
        d.style.cssText = 'position:fixed;top:0;left:0;z-index:99;background:#1f6f45;padding:8px;display:flex;gap:6px';
        d.innerHTML = ['french', 'german'].map((s) => ['C6', 'S6', 'H6', 'D6', 'D7'].map((c) =>
          `<span class="card" style="width:70px">${cardSVG(c, s)}</span>`).join('')).join('');
        document.body.appendChild(d); }""")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.locator("#sixes").screenshot(path=str(ARTIFACTS / "play_web_sixes.png"))
    pg.evaluate("document.getElementById('sixes').remove()")
    pg.set_viewport_size({"width": 390, "height": 800})
    try:
        _start(pg, "skat", 30, ["rule"], variant="strohmann")
        pg.wait_for_selector("#hand .card")
        width = pg.evaluate("document.documentElement.scrollWidth")
        assert width <= 392  # nothing wider than the phone
        pg.screenshot(path=str(ARTIFACTS / "play_web_phone.png"))
    finally:
        pg.set_viewport_size({"width": 1000, "height": 800})
