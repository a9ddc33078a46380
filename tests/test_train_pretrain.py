"""Behaviour-cloning warm start: the teacher's data, the cloning, and the trainer's use of it."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
import torch
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from agents import checkpoint, load
from agents.networks import ActorCritic
from tests.test_train_trainer import tiny
from train import pretrain as pretrain_module
from train.config import ConfigError, load_config
from train.pretrain import behaviour_clone, collect_demonstrations, demonstration_q_loss, play_teacher
from train.pretrain.__main__ import main as pretrain_main
from train.trainer import Trainer

OPTIONS = {"skat": {}, "thirtyone": {"num_players": 3, "lives": 1}}


@pytest.mark.parametrize("game", ["skat", "thirtyone"])
def test_teacher_data_is_legal_and_seeded(game):
    data = play_teacher(game, OPTIONS[game], "rule", 5, seed=3)
    n = len(data["action"])
    assert n > 0 and all(len(v) == n for v in data.values())
    assert data["mask"][np.arange(n), data["action"]].all()  # every recorded action was legal
    assert set(data["deal"].tolist()) == set(range(5))
    again = play_teacher(game, OPTIONS[game], "rule", 5, seed=3)
    assert all(np.array_equal(data[k], again[k]) for k in data)


def test_skat_returns_are_the_seats_scores():
    # Skat pays only at the end of a deal, so with gamma 1 every decision of a seat carries the
    # seat's deal score; tournament scores of a deal add up to the declarer's score, plus 40 per
    # defender when the declarer lost, or to 0 when all passed.
    data = play_teacher("skat", {"scoring": "tournament"}, "rule", 30, seed=5, reward_scale=0.01)
    per_seat: dict[tuple[int, int], set[float]] = defaultdict(set)
    for deal, seat, ret in zip(data["deal"], data["seat"], data["ret"], strict=True):
        per_seat[int(deal), int(seat)].add(round(float(ret) * 100, 3))
    assert all(len(v) == 1 for v in per_seat.values())
    for deal in range(30):
        scores = sorted(per_seat[deal, s].pop() for s in range(3))
        if scores == [0, 0, 0]:
            continue
        declarer = [x for x in scores if x not in (0, 40)]
        assert len(declarer) == 1, scores
        assert scores.count(40) in (0, 2) and (scores.count(40) == 2) == (declarer[0] < 0), scores


def test_discounted_returns():
    data = play_teacher("thirtyone", {"num_players": 2, "lives": 1}, "rule", 3, seed=1, gamma=0.5)
    for deal, seat in {(int(d), int(s)) for d, s in zip(data["deal"], data["seat"], strict=True)}:
        rets = data["ret"][(data["deal"] == deal) & (data["seat"] == seat)]
        # one terminal reward, discounted by 0.5 per earlier decision of the seat
        assert np.allclose(rets[:-1], 0.5 * rets[1:])


def test_collection_does_not_depend_on_workers(monkeypatch):
    monkeypatch.setattr(pretrain_module, "CHUNK", 10)
    one = collect_demonstrations("thirtyone", OPTIONS["thirtyone"], "rule", 25, seed=2, workers=1, progress=False)
    two = collect_demonstrations("thirtyone", OPTIONS["thirtyone"], "rule", 25, seed=2, workers=2, progress=False)
    assert all(np.array_equal(one[k], two[k]) for k in one)
    assert sorted(set(one["deal"].tolist())) == list(range(25))


def test_cloning_learns_the_teacher():
    data = play_teacher("thirtyone", OPTIONS["thirtyone"], "rule", 40, seed=4)
    torch.manual_seed(0)
    net = ActorCritic(data["obs"].shape[1], data["mask"].shape[1], [64])

    def value_error() -> float:  # over all decisions, most of them trained on
        with torch.no_grad():
            return float(((net.value(torch.from_numpy(data["obs"])) - torch.from_numpy(data["ret"])) ** 2).mean())

    before = behaviour_clone(net, data, epochs=0, batch_size=64, learning_rate=1e-3, value_coef=0.5,
                             holdout=0.25, seed=0, progress=False)
    error = value_error()
    after = behaviour_clone(net, data, epochs=10, batch_size=64, learning_rate=3e-3, value_coef=0.5,
                            holdout=0.25, seed=0, progress=False)
    assert after["pretrain/accuracy"] > before["pretrain/accuracy"] + 0.25  # held-out deals: 0.25 -> 0.6
    assert value_error() < error
    assert next(net.parameters()).device.type == "cpu"


def test_demonstration_q_loss_puts_the_teachers_move_first_by_the_margin():
    q = torch.tensor([[0.5, 0.4, 9.0, 0.0]], requires_grad=True)  # action 2 is illegal: it never counts
    mask, action, ret = torch.tensor([[True, True, False, True]]), torch.tensor([1]), torch.tensor([0.4])
    # Q(s, taken) = return: no regression error; the best other legal move is 0.1 above it, plus margin 0.2.
    assert demonstration_q_loss(q, mask, action, ret, 0.2).item() == pytest.approx(0.3)
    ordered = torch.tensor([[0.1, 0.4, 9.0, 0.2]])  # the teacher's move leads by 0.2: nothing to learn
    assert demonstration_q_loss(ordered, mask, action, ret, 0.2).item() == pytest.approx(0.0)


def test_nfsp_warm_start_fits_both_networks_to_the_teacher(tmp_path):
    """NFSP's average policy is cloned; its best response learns the teacher's moves first (DQfD), and the
    target network starts from it, so the first TD targets bootstrap from the warm Q-values."""
    overrides = tiny(tmp_path, "thirtyone", "algorithm=nfsp", "pretrain.teacher=rule", "pretrain.episodes=12",
                     "pretrain.epochs=8", "pretrain.learning_rate=3e-3", "pretrain.holdout=0.25", "hidden=64",
                     "reward_scale=1.0")
    trainer = Trainer(load_config(overrides=overrides))
    metrics = trainer.pretrain()
    # held-out deals of so few games: untrained 0.26 (Q) and 0.37 (policy), trained 0.44 and 0.56
    assert metrics["pretrain/q_accuracy"] > 0.36 and metrics["pretrain/accuracy"] > 0.47
    learner = trainer.learner
    for name, weight in learner.network.q.state_dict().items():
        assert torch.equal(weight, learner.target_q.state_dict()[name])


def test_nfsp_keeps_the_teachers_decisions_for_the_margin_loss_and_again_on_resume(tmp_path):
    overrides = tiny(tmp_path, "thirtyone", "algorithm=nfsp", "pretrain.teacher=rule", "pretrain.episodes=4",
                     "pretrain.epochs=1", "nfsp.demo_weight=1.0", "nfsp.demo_size=300", "nfsp.learning_starts=10",
                     "nfsp.learn_every=4", "nfsp.batch_size=16")
    trainer = Trainer(load_config(overrides=overrides))
    trainer.train()
    demos = trainer.learner.demos
    assert len(demos["action"]) == 300 and demos["obs"].shape[1] == trainer.obs_size
    assert trainer.learner.rl_steps > 0  # the RL steps ran with the margin term on these rows
    resumed = Trainer.resume(str(tmp_path / "ckpt" / "t" / "latest.pt"), ["total_timesteps=160"])
    assert resumed.learner.needs_demonstrations  # checkpoints do not store them ...
    resumed.train()
    assert all(torch.equal(demos[k], resumed.learner.demos[k]) for k in demos)  # ... the same deals are replayed


def test_nfsp_puts_the_teachers_decisions_into_the_reservoir_once(tmp_path):
    overrides = tiny(tmp_path, "thirtyone", "algorithm=nfsp", "pretrain.teacher=rule", "pretrain.episodes=4",
                     "pretrain.epochs=1", "nfsp.demo_reservoir=200", "nfsp.learning_starts=10",
                     "nfsp.learn_every=4", "nfsp.batch_size=16")
    trainer = Trainer(load_config(overrides=overrides))
    trainer.pretrain()
    reservoir = trainer.learner.reservoir
    assert reservoir.seen == reservoir.size == 200  # before any best-response move
    seeded = reservoir.obs[:200].copy()
    trainer.train()
    assert reservoir.seen > 200  # best-response moves followed them
    resumed = Trainer.resume(str(tmp_path / "ckpt" / "t" / "latest.pt"), ["total_timesteps=160"])
    assert resumed.learner.needs_demonstrations  # the reservoir was saved without its data ...
    resumed.train()
    assert np.array_equal(resumed.learner.reservoir.obs[:200], seeded)  # ... and gets the same decisions again
    seen = resumed.learner.reservoir.seen
    resumed.learner.keep_demonstrations({"obs": seeded[:5], "mask": reservoir.mask[:5], "action": reservoir.action[:5]},
                                        0.2, np.random.default_rng(0))
    assert resumed.learner.reservoir.seen == seen  # a reservoir that has seen moves gets no teacher's decisions


def test_copy_teacher_starts_the_policy_as_the_teachers_network(tmp_path):
    Trainer(load_config(overrides=tiny(tmp_path / "ppo", "thirtyone"))).train()
    teacher = str(tmp_path / "ppo" / "ckpt" / "t" / "latest.pt")
    source = checkpoint.load_policy_network(checkpoint.load(teacher))
    overrides = tiny(tmp_path, "thirtyone", "algorithm=nfsp", f"pretrain.teacher={teacher}", "pretrain.episodes=2",
                     "pretrain.epochs=2", "pretrain.copy_teacher=true",
                     f"activation={source.spec['activation']}")
    trainer = Trainer(load_config(overrides=overrides))
    q_before = [w.clone() for w in trainer.learner.network.q.parameters()]
    trainer.pretrain()
    obs = torch.rand(8, trainer.obs_size)
    with torch.no_grad():  # the policy is the teacher's, exactly; only the Q-network was fitted
        assert torch.equal(trainer.learner.network.policy_logits(obs), source.policy_logits(obs))
    assert any(not torch.equal(a, b) for a, b in zip(q_before, trainer.learner.network.q.parameters(), strict=True))
    other = "relu" if source.spec["activation"] == "tanh" else "tanh"
    mismatched = Trainer(load_config(overrides=[*overrides, f"activation={other}"]))
    with pytest.raises(ValueError, match="copy_teacher.*set hidden and activation"):
        mismatched.pretrain()
    with pytest.raises(ConfigError, match="pretrain.copy_teacher.*needs a checkpoint"):
        load_config(overrides=["pretrain.teacher=rule", "pretrain.copy_teacher=true"])


def test_trainer_warm_start_then_resume(tmp_path):
    overrides = tiny(tmp_path, "thirtyone", "pretrain.teacher=rule", "pretrain.episodes=4", "pretrain.epochs=2")
    trainer = Trainer(load_config(overrides=overrides))
    trainer.train()
    assert trainer.pretrain_metrics["pretrain/decisions"] > 0
    run = tmp_path / "ckpt" / "t"
    warm = checkpoint.load(run / "pretrained.pt", resumable=True)
    assert warm["trainer"]["global_step"] == 0 and warm["trainer"]["pretrain"]
    events = EventAccumulator(str(tmp_path / "runs" / "t"))
    events.Reload()
    assert {"pretrain/accuracy", "pretrain/policy_loss"} <= set(events.Tags()["scalars"])
    assert events.Scalars("eval/win_rate_vs_rule")[0].step == 0  # the warm start is evaluated first
    # A run resumed from the warm start does not clone again and starts at step 0.
    resumed = Trainer.resume(str(run / "pretrained.pt"), [f"checkpoint_dir={tmp_path}/ck2", "run_name=r"])
    assert resumed.pretrain_metrics == trainer.pretrain_metrics and resumed.global_step == 0
    resumed.pretrain = None  # would fail if called
    resumed.train()
    assert resumed.global_step >= 80


def test_pretrain_cli_writes_a_playing_checkpoint(tmp_path, capsys):
    out = tmp_path / "bc.pt"
    assert pretrain_main(["--game", "thirtyone", "--episodes", "3", "--out", str(out), "--set",
                          "env_options={num_players: 3, lives: 1}", "hidden=16", "pretrain.epochs=1",
                          "progress=false", "num_workers=1", f"runs_dir={tmp_path}/runs"]) == 0
    assert "pretrain/accuracy" in capsys.readouterr().out
    agent = load(out, game="thirtyone")
    assert agent.metadata["pretrain"]["pretrain/decisions"] > 0
    assert pretrain_main(["--game", "thirtyone", "--teacher", "nobody.pt", "--out", str(out)]) == 2


def test_dagger_driver_plays_and_the_teacher_labels(tmp_path, capsys):
    """--init continues from a checkpoint's weights; with pretrain.driver that checkpoint plays the
    deals and the rule agent's answers to the same observations are the labels."""
    first = tmp_path / "bc.pt"
    common = ["progress=false", "num_workers=1", f"runs_dir={tmp_path}/runs", "pretrain.epochs=1"]
    assert pretrain_main(["--game", "skat", "--episodes", "2", "--out", str(first), "--set", "hidden=16",
                          *common]) == 0
    teacher_only = play_teacher("skat", {}, "rule", 6, [5, 0])
    driven = play_teacher("skat", {}, "rule", 6, [5, 0], driver=str(first))
    assert not np.array_equal(teacher_only["action"], driven["action"])  # the barely trained driver errs
    assert driven["mask"][np.arange(len(driven["action"])), driven["action"]].all()
    from agents.rule_skat import RuleSkatAgent

    fresh = RuleSkatAgent()  # its answer depends on the observation only (memory keyed by the cards)
    labels = [fresh.act({"observation": o, "action_mask": m.astype(np.int8)})
              for o, m in zip(driven["obs"], driven["mask"], strict=True)]
    assert labels == driven["action"].tolist()

    second = tmp_path / "dagger.pt"
    start = checkpoint.load(first, resumable=True)["learner"]["network"]["actor.0.weight"]
    assert pretrain_main(["--init", str(first), "--episodes", "2", "--out", str(second), "--set",
                          f"pretrain.driver={first}", *common]) == 0
    data = checkpoint.load(second, resumable=True)
    assert data["config"]["pretrain"]["driver"] == str(first) and data["config"]["hidden"] == [16]
    moved = (data["learner"]["network"]["actor.0.weight"] - start).abs().max().item()
    assert 0 < moved < 0.05  # trained further from the first clone's weights, not from fresh ones
    capsys.readouterr()
    with pytest.raises(SystemExit):
        pretrain_main(["--init", str(first), "--config", "configs/skat_ppo.yaml", "--out", str(second)])
    assert pretrain_main(["--game", "skat", "--out", str(second), "--set", "pretrain.driver=nowhere.pt"]) == 2


def test_teach_only_keeps_the_drivers_other_moves(tmp_path, capsys):
    """pretrain.teach_only: the teacher labels only decisions of the named kinds, the driver the rest;
    --init also starts from a policy-only checkpoint (its actor; the critic fresh)."""
    from agents.rule_skat import RuleSkatAgent
    from envs.skat import actions as A

    first = tmp_path / "bc.pt"
    common = ["progress=false", "num_workers=1", f"runs_dir={tmp_path}/runs", "pretrain.epochs=1"]
    assert pretrain_main(["--game", "skat", "--episodes", "2", "--out", str(first), "--set", "hidden=16",
                          *common]) == 0
    data = play_teacher("skat", {}, "rule", 8, [5, 0], driver=str(first), teach_only=["discard", "declare"])
    taught = data["mask"][:, A.DISCARD:A.KONTRA].any(1)
    assert data["taught"].tolist() == taught.tolist() and 0 < taught.sum() < len(taught)
    teacher, driver = RuleSkatAgent(), load(first, greedy=True)
    rows = [{"observation": o, "action_mask": m.astype(np.int8)}
            for o, m in zip(data["obs"], data["mask"], strict=True)]
    expected = [teacher.act(r) if t else driver.act(r) for r, t in zip(rows, taught, strict=True)]
    assert expected == data["action"].tolist()

    policy_only = tmp_path / "policy.pt"
    Trainer.resume(str(first)).save(policy_only, full=False)
    out = tmp_path / "taught.pt"
    assert pretrain_main(["--init", str(policy_only), "--episodes", "3", "--out", str(out), "--set",
                          f"pretrain.driver={policy_only}", "pretrain.teach_only=[discard, declare]",
                          "eval_greedy=true", *common]) == 0
    assert "pretrain/taught_accuracy" in capsys.readouterr().out
    taught_agent = load(out, game="skat")
    assert taught_agent.metadata["pretrain"]["pretrain/taught_decisions"] > 0
    assert taught_agent.greedy  # its config evaluates greedily, so the file plays greedily
    assert not load(first, game="skat").greedy
    with pytest.raises(Exception, match="pretrain.teach_only.*needs pretrain.driver"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", "pretrain.teach_only=[discard]"])
    with pytest.raises(Exception, match=r"pretrain.teach_only.*unknown decision kinds \['discards'\]"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", f"pretrain.driver={first}",
                                              "pretrain.teach_only=[discards]"])


@pytest.fixture
def labelled(monkeypatch):
    """collect_demonstrations over small chunks, counting the chunks actually labelled (not read from a cache)."""
    monkeypatch.setattr(pretrain_module, "CHUNK", 4)
    calls: list[int] = []
    job = pretrain_module._chunk_job

    def counting(args: tuple) -> tuple:
        calls.append(args[0])
        return job(args)

    monkeypatch.setattr(pretrain_module, "_chunk_job", counting)

    def collect(folder, teacher="rule", seed=3, episodes=10, **kwargs) -> dict[str, np.ndarray]:
        calls.clear()
        return collect_demonstrations("skat", {}, teacher, episodes, seed, progress=False, cache=str(folder), **kwargs)

    collect.calls = calls
    return collect


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in a)


def test_cache_is_read_back_by_a_second_run(tmp_path, labelled):
    first = labelled(tmp_path / "cache")
    assert labelled.calls == [0, 1, 2] and len(list((tmp_path / "cache").glob("chunk*.npz"))) == 3
    second = labelled(tmp_path / "cache")
    assert labelled.calls == [] and same(first, second)  # nothing labelled again, the same data
    assert same(first, labelled(""))  # and the same as without a cache


def test_cache_of_another_teacher_or_seed_is_not_reused(tmp_path, labelled):
    labelled(tmp_path)
    labelled(tmp_path, seed=4)
    assert labelled.calls == [0, 1, 2]
    labelled(tmp_path, teacher="random")
    assert labelled.calls == [0, 1, 2]
    labelled(tmp_path, episodes=9)  # the last chunk has fewer deals: labelled anew, the others reused
    assert labelled.calls == [2]
    assert len(list(tmp_path.glob("chunk*.npz"))) == 10


def test_partial_cache_is_completed(tmp_path, labelled):
    whole = labelled(tmp_path)
    sorted(tmp_path.glob("chunk00001-*.npz"))[0].unlink()  # as if the run had been killed before chunk 1
    (sorted(tmp_path.glob("chunk00002-*.npz"))[0]).write_bytes(b"not a chunk")  # or a file from elsewhere
    again = labelled(tmp_path)
    assert sorted(labelled.calls) == [1, 2] and same(whole, again)
    assert labelled(tmp_path) and labelled.calls == []


def test_cache_keys_a_driver_by_its_content(tmp_path):
    from train.pretrain.cache import cache_problem, spec_key

    (tmp_path / "a.pt").write_bytes(b"weights")
    (tmp_path / "b.pt").write_bytes(b"weights")
    assert spec_key(str(tmp_path / "a.pt")) == spec_key(str(tmp_path / "b.pt")) != spec_key(str(tmp_path / "c.pt"))
    assert spec_key("pimc:preset=fast") == "pimc:preset=fast"
    assert cache_problem("") is None and cache_problem(str(tmp_path / "new")) is None
    assert "is not a folder" in cache_problem(str(tmp_path / "a.pt"))


def test_pimc_labels_the_drivers_card_play():
    """The issue's expert iteration: PIMC (fast) labels card play, the shipped PPO network plays the deals."""
    from envs.skat import actions as A

    args = ("skat", {"scoring": "tournament"}, "pimc:preset=fast", 1, [7, 0])
    data = play_teacher(*args, driver="checkpoints/skat_ppo.pt", teach_only=["play"])
    taught = data["mask"][:, A.PLAY:A.NUM_ACTIONS].any(1)
    assert data["taught"].tolist() == taught.tolist() and taught.sum() >= 10
    assert data["mask"][np.arange(len(data["action"])), data["action"]].all()
    again = play_teacher(*args, driver="checkpoints/skat_ppo.pt", teach_only=["play"])
    assert same(data, again)  # PIMC is deterministic with a seed


@pytest.mark.skipif(not hasattr(__import__("train.config").config.PretrainConfig, "cache"),
                    reason="train/config.py does not have pretrain.cache yet")
def test_config_takes_a_cache_folder_and_a_pimc_teacher(tmp_path):
    common = ["pretrain.driver=checkpoints/skat_ppo.pt", "pretrain.teach_only=[play]"]
    cfg = load_config("configs/skat_ppo.yaml", ["pretrain.teacher=pimc:preset=fast", *common,
                                                f"pretrain.cache={tmp_path}/cache"])
    assert cfg.pretrain.cache == f"{tmp_path}/cache" and load_config().pretrain.cache == ""
    recipe = load_config("configs/skat_exit.yaml").pretrain
    assert (recipe.teacher, recipe.teach_only, recipe.cache) == ("pimc:preset=fast", ["play"], "runs/exit_cache")
    (tmp_path / "file").write_text("")
    with pytest.raises(Exception, match=r"pretrain.cache.*exists and is not a folder"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", f"pretrain.cache={tmp_path}/file"])
    with pytest.raises(Exception, match=r"pretrain.teacher.*pimc"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=pimc:worlds=x", *common])


def test_opponents_play_unrecorded_seats(labelled, tmp_path):
    """pretrain.opponents: one seat per deal (rotating) is taught, the others draw rule or another taught
    seat; only taught seats are recorded, the labels are still the teacher's, and the cache keys the mix."""
    from agents.rule_skat import RuleSkatAgent

    data = play_teacher("skat", {}, "rule", 9, [5, 0], driver="checkpoints/skat_ppo.pt",
                        opponents={"rule": 1.0, "self": 1.0})
    seats = defaultdict(set)
    for deal, seat in zip(data["deal"].tolist(), data["seat"].tolist(), strict=True):
        seats[deal].add(seat)
    assert all(deal % 3 in taught for deal, taught in seats.items())  # the rotating seat is always taught
    assert {len(taught) for taught in seats.values()} > {1} and any(len(t) < 3 for t in seats.values())
    fresh = RuleSkatAgent()
    assert [fresh.act({"observation": o, "action_mask": m.astype(np.int8)})
            for o, m in zip(data["obs"], data["mask"], strict=True)] == data["action"].tolist()
    alone = play_teacher("skat", {}, "rule", 9, [5, 0], driver="checkpoints/skat_ppo.pt", opponents={"rule": 1.0})
    assert {len(set(alone["seat"][alone["deal"] == d])) for d in range(9)} == {1}
    assert same(alone, play_teacher("skat", {}, "rule", 9, [5, 0], driver="checkpoints/skat_ppo.pt",
                                    opponents={"rule": 1.0}))  # seeded

    searched = play_teacher("skat", {}, "rule", 3, [5, 0], driver="checkpoints/skat_ppo.pt",
                            opponents={"pimc:preset=endgame": 1.0})  # a search agent in the other seats
    assert {len(set(searched["seat"][searched["deal"] == d])) for d in range(3)} == {1}

    labelled(tmp_path, episodes=4)
    labelled(tmp_path, episodes=4, opponents={"rule": 1.0})
    assert labelled.calls == [0]  # another mix is another data set
    labelled(tmp_path, episodes=4, opponents={"rule": 1.0})
    assert labelled.calls == []

    cfg = load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", "pretrain.opponents={self: 1, rule: 2}"])
    assert cfg.pretrain.opponents == {"self": 1, "rule": 2} and load_config().pretrain.opponents == {}
    with pytest.raises(ConfigError, match="pretrain.opponents.*needs pretrain.teacher"):
        load_config("configs/skat_ppo.yaml", ["pretrain.opponents={rule: 1}"])
    with pytest.raises(ConfigError, match="pretrain.opponents.*non-negative weights"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", "pretrain.opponents={rule: -1}"])
    with pytest.raises(ConfigError, match="pretrain.opponents.*nobody.pt"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", "pretrain.opponents={nobody.pt: 1}"])
    searcher = load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule",
                                                     'pretrain.opponents={self: 1, "pimc:preset=endgame": 1}'])
    assert searcher.pretrain.opponents == {"self": 1, "pimc:preset=endgame": 1}  # a search agent sits at the table
    with pytest.raises(ConfigError, match="pretrain.opponents.*unknown pimc option 'wrlds'"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", 'pretrain.opponents={"pimc:wrlds=4": 1}'])


def test_init_from_a_narrower_policy_widens_it_to_the_same_function(tmp_path):
    """--init with wider hidden layers than the file's: the actor starts as the same function, new units
    included (their outgoing weights zero), and the cloning trains them; a narrower or deeper config fails."""
    from agents.networks import widen

    first = tmp_path / "bc.pt"
    common = ["progress=false", "num_workers=1", f"runs_dir={tmp_path}/runs", "pretrain.epochs=1"]
    assert pretrain_main(["--game", "skat", "--episodes", "2", "--out", str(first), "--set", "hidden=16,8",
                          *common]) == 0
    policy_only = tmp_path / "policy.pt"
    Trainer.resume(str(first)).save(policy_only, full=False)
    narrow = load(policy_only, game="skat").network
    wide = Trainer.from_policy(str(policy_only), ["hidden=24,12", *common]).learner.network
    obs = torch.from_numpy(play_teacher("skat", {}, "rule", 2, [1, 0])["obs"])
    with torch.no_grad():
        torch.testing.assert_close(wide.policy_logits(obs), narrow.policy_logits(obs), atol=1e-5, rtol=1e-5)
    assert wide.actor[0].weight[16:].abs().sum() > 0  # the new units have inputs, and no say yet
    assert wide.actor[2].weight[:8, 16:].abs().sum() == 0 and wide.actor[4].weight[:, 8:].abs().sum() == 0

    out = tmp_path / "wide.pt"
    assert pretrain_main(["--init", str(policy_only), "--episodes", "2", "--out", str(out), "--set", "hidden=24,12",
                          f"pretrain.driver={policy_only}", *common]) == 0
    grown = load(out, game="skat").network
    assert grown.actor[4].weight[:, 8:].abs().sum() > 0  # the cloning trained the new units
    for hidden in ("8,8", "16,8,8"):
        with pytest.raises(checkpoint.CheckpointError, match="does not fit"):
            Trainer.from_policy(str(policy_only), [f"hidden={hidden}", *common])
    with pytest.raises(ValueError, match=r"w: \(3, 2\) does not fit in \(2, 2\)"):
        widen({"w": torch.zeros(3, 2)}, {"w": torch.zeros(2, 2)})


def test_correction_weight_weights_the_labels_that_differ_from_the_driver(tmp_path, capsys):
    """pretrain.correction_weight: rows whose (taught) label is not the driver's greedy move get that weight;
    the cloning runs with the weights (the policy loss is their weighted mean)."""
    from train.pretrain import correction_weights

    first = tmp_path / "bc.pt"
    common = ["progress=false", "num_workers=1", f"runs_dir={tmp_path}/runs", "pretrain.epochs=1"]
    assert pretrain_main(["--game", "skat", "--episodes", "2", "--out", str(first), "--set", "hidden=16",
                          *common]) == 0
    data = play_teacher("skat", {}, "rule", 6, [5, 0], driver=str(first), teach_only=["play"])
    weights = correction_weights(data, str(first), 4.0)
    driver = load(first, greedy=True)
    moves = np.array([driver.act({"observation": o, "action_mask": m.astype(np.int8)})
                      for o, m in zip(data["obs"], data["mask"], strict=True)])
    corrected = (moves != data["action"]) & data["taught"]
    assert 0 < corrected.sum() < len(moves)
    assert weights.tolist() == np.where(corrected, 4.0, 1.0).tolist()

    out = tmp_path / "weighted.pt"
    assert pretrain_main(["--init", str(first), "--episodes", "2", "--out", str(out), "--set",
                          f"pretrain.driver={first}", "pretrain.correction_weight=4", *common]) == 0
    assert load(out, game="skat").metadata["pretrain"]["pretrain/decisions"] > 0
    with pytest.raises(ConfigError, match="pretrain.correction_weight.*needs pretrain.driver"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", "pretrain.correction_weight=3"])
    with pytest.raises(ConfigError, match=r"pretrain.correction_weight.*must be > 0"):
        load_config("configs/skat_ppo.yaml", ["pretrain.teacher=rule", f"pretrain.driver={first}",
                                              "pretrain.correction_weight=0"])
