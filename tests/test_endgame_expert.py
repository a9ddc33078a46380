"""The endgame expert network (agents/endgame_expert.py) and its fitting command (train/pretrain/expert.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
from agents.checkpoint import load as load_checkpoint
from agents.endgame_expert import EndgameExpertNetwork
from envs.skat.observation import OBSERVATION_SIZE, PHASE, TRICK_COUNT
from envs.skat.rules import AUCTION, PLAY
from train.evaluate import main as evaluate_main
from train.pretrain.expert import main as expert_main

SHIPPED = "checkpoints/skat_ppo.pt"
TEACHER = "pimc:base=checkpoints/skat_ppo.pt,from_trick=8,worlds=4"


def _network(anchor: float = 0.5, from_trick: int = 5, **options) -> EndgameExpertNetwork:
    base = load_checkpoint(SHIPPED)
    torch.manual_seed(0)
    meta = base["metadata"]
    net = EndgameExpertNetwork(OBSERVATION_SIZE, meta["num_actions"], [32], base=meta["network"], from_trick=from_trick,
                               anchor=anchor, **options)
    net.base.load_state_dict(base["policy"])
    for p in net.expert.parameters():  # a visible expert: out_std=0.01 would leave it nearly uniform
        torch.nn.init.normal_(p, std=0.3)
    return net.eval()


def _rows(phase: int, tricks_done: int, n: int = 4) -> torch.Tensor:
    obs = torch.rand(n, OBSERVATION_SIZE).round()
    obs[:, PHASE : PHASE + 8] = 0.0
    obs[:, PHASE + phase] = 1.0
    obs[:, TRICK_COUNT] = tricks_done / 10
    return obs


def test_the_base_decides_before_the_expert_trick_and_the_product_after():
    net = _network(anchor=0.5, from_trick=5)
    with torch.no_grad():
        for obs in (_rows(AUCTION, 0), _rows(PLAY, 3)):  # the auction, and trick 4 of the play
            assert torch.equal(net.policy_logits(obs), net.base_logits(obs))
            assert torch.allclose(net.policy_logits(obs), net.base.policy_logits(obs), atol=1e-5)
        late = _rows(PLAY, 4)  # trick 5
        base = torch.log_softmax(net.base_logits(late), 1)
        expected = torch.log_softmax(net.expert_logits(late), 1) + 0.5 * base
        assert torch.allclose(net.policy_logits(late), expected)
        assert not torch.allclose(net.policy_logits(late), net.base.policy_logits(late))


def test_card_trick_numbers_the_card_play_and_zeroes_the_rest():
    net = _network()
    obs = torch.cat([_rows(AUCTION, 0, n=2), _rows(PLAY, 0, n=2), _rows(PLAY, 9, n=2)])
    assert net.card_trick(obs).tolist() == [0, 0, 1, 1, 10, 10]


def test_the_product_needs_no_mask_its_legal_argmax_is_the_masked_products():
    net = _network(anchor=0.7)
    obs = _rows(PLAY, 6, n=64)
    mask = torch.rand(64, net.spec["num_actions"]) < 0.1
    mask[:, 0] = True
    with torch.no_grad():
        played = net.policy_logits(obs).masked_fill(~mask, -torch.inf).argmax(1)
        masked = (torch.log_softmax(net.expert_logits(obs).masked_fill(~mask, -torch.inf), 1)
                  + 0.7 * torch.log_softmax(net.base.policy_logits(obs).masked_fill(~mask, -torch.inf), 1))
    assert torch.equal(played, masked.argmax(1))


def test_bad_specs_are_refused_with_the_reason():
    spec = load_checkpoint(SHIPPED)["metadata"]["network"]
    with pytest.raises(ValueError, match="Skat observation"):
        EndgameExpertNetwork(100, 162, [8], base=spec)
    with pytest.raises(ValueError, match="from_trick must be in 1..10"):
        EndgameExpertNetwork(OBSERVATION_SIZE, 162, [8], base=spec, from_trick=11)
    with pytest.raises(ValueError, match="anchor must be >= 0"):
        EndgameExpertNetwork(OBSERVATION_SIZE, 162, [8], base=spec, anchor=-1)
    with pytest.raises(ValueError, match="base network's spec"):
        EndgameExpertNetwork(OBSERVATION_SIZE, 162, [8])
    net = _network(from_trick=5)
    with pytest.raises(ValueError, match="from_trick must be in 1..10"):
        net.play_from(0)
    net.play_from(3)  # the expert now joins at trick 3, as the spec a checkpoint stores says
    assert net.policy_spec()["from_trick"] == 3
    assert net.late(_rows(PLAY, 2)).all() and not net.late(_rows(PLAY, 1)).any()


def test_the_command_fits_an_expert_that_loads_and_plays(tmp_path, capsys):
    out = tmp_path / "exit.pt"
    common = ["--init", SHIPPED, "--episodes", "6", "--from-trick", "8", "--hidden", "32", "--epochs", "3", "--set",
              f"pretrain.teacher={TEACHER}", f"pretrain.driver={SHIPPED}", "pretrain.teach_only=[play]",
              "pretrain.copy_teacher=false", f"pretrain.cache={tmp_path}/cache", "num_workers=1", "progress=false"]
    assert expert_main([*common, "pretrain.soft_temperature=2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "expert/regret_expert=" in printed and f"wrote {out}" in printed
    data = load_checkpoint(out)
    meta = data["metadata"]
    assert meta["network"]["kind"] == "endgame_expert" and meta["network"]["from_trick"] == 8
    assert meta["greedy"] is True and meta["expert"]["expert/searched_decisions"] > 0
    # the base inside is the shipped network, unchanged
    shipped = load_checkpoint(SHIPPED)["policy"]
    assert all(torch.equal(data["policy"][f"base.{k}"], v) for k, v in shipped.items())
    bot = agents.load(out, game="skat")
    assert bot.greedy
    assert evaluate_main(["--game", "skat", str(out), "--vs", "rule", "--deals", "2", "--workers", "1",
                          "--no-progress", "--out", str(tmp_path / "eval")]) == 0
    # --score fits nothing and finds the fit's own held-out decisions and regret again (the same split)
    capsys.readouterr()
    assert expert_main([*common, "pretrain.soft_temperature=2", "--score", str(out)]) == 0
    scored = capsys.readouterr().out
    fitted = meta["expert"]
    assert (f"{out}: regret_base={fitted['expert/regret_base']:.4g} regret_expert={fitted['expert/regret_expert']:.4g}"
            f" regret_played={fitted['expert/regret_played']:.4g} test_decisions={fitted['expert/test_decisions']:.4g}"
            in scored) and "wrote" not in scored
    # --by-trick: every searched card decision of the labels (tricks 8 and 9 here), the base's and the played regret
    assert expert_main([*common, "pretrain.soft_temperature=2", "--score", str(out), "--by-trick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{out}: regret per searched card decision, all 6 labelled deals"
    rows = [line.split() for line in lines[2:]]
    assert [int(r[0]) for r in rows] == [8, 9] and all(float(r[2]) >= 0 and float(r[3]) >= 0 for r in rows)
    for flags, reason in ((["--score", SHIPPED], "not an endgame-expert checkpoint"),
                          (["--score", str(out), "--min-deal", "999"], "no held-out decisions from deal 999")):
        assert expert_main([*common, "pretrain.soft_temperature=2", *flags]) == 2
        assert reason in capsys.readouterr().err
    # a DAgger round continues from that expert: at a tiny learning rate it barely moves
    again = tmp_path / "again.pt"
    assert expert_main([*common, "pretrain.soft_temperature=2", "--expert-init", str(out), "--learning-rate", "1e-9",
                        "--out", str(again)]) == 0
    assert "expert/regret_warm_start=" in capsys.readouterr().out
    moved = load_checkpoint(again)
    assert moved["metadata"]["expert_init"] == str(out)
    assert all(torch.allclose(moved["policy"][k], v, atol=1e-6) for k, v in data["policy"].items())
    for wrong, reason, flags in ((SHIPPED, "expected an endgame-expert checkpoint", []),
                                 (str(out), "has layers [32]", ["--hidden", "16"]),
                                 (str(out), "reads other inputs", ["--features"])):
        assert expert_main([*common, "pretrain.soft_temperature=2", "--expert-init", wrong,
                            "--out", str(tmp_path / "y.pt"), *flags]) == 2
        assert reason in capsys.readouterr().err
    # --suit-augment: the same labels, each seen in random suit views; the file says it was fitted so
    augmented = tmp_path / "augmented.pt"
    assert expert_main([*common, "pretrain.soft_temperature=2", "--suit-augment", "--out", str(augmented)]) == 0
    assert load_checkpoint(augmented)["metadata"]["suit_augment"] is True and meta["suit_augment"] is False
    # --play-from-trick: fitted from trick 8, playing from trick 3; --rewrite does the same to a written file
    early = tmp_path / "early.pt"
    assert expert_main([*common, "pretrain.soft_temperature=2", "--play-from-trick", "3", "--out", str(early)]) == 0
    assert load_checkpoint(early)["metadata"]["network"]["from_trick"] == 3
    rewritten = tmp_path / "rewritten.pt"
    assert expert_main(["--rewrite", str(out), "--play-from-trick", "2", "--out", str(rewritten)]) == 0
    copy = load_checkpoint(rewritten)
    assert copy["metadata"]["network"] == {**meta["network"], "from_trick": 2}
    assert copy["metadata"]["rewritten_from"] == str(out) and copy["metadata"]["expert"] == meta["expert"]
    assert all(torch.equal(copy["policy"][k], v) for k, v in data["policy"].items())
    assert agents.load(rewritten, game="skat").greedy
    for flags, reason in ((["--rewrite", SHIPPED, "--play-from-trick", "2"], "holds no endgame expert"),
                          (["--rewrite", str(out), "--play-from-trick", "11"], "from_trick must be in 1..10")):
        assert expert_main([*flags, "--out", str(tmp_path / "z.pt")]) == 2
        assert reason in capsys.readouterr().err
    with pytest.raises(SystemExit):
        expert_main(["--rewrite", str(out), "--out", str(tmp_path / "z.pt")])
    assert "--rewrite needs --out and one or more of --play-from-trick" in capsys.readouterr().err
    # --pass-bias: the same weights, a spec that says so; nan is refused with the reason
    cautious = tmp_path / "cautious.pt"
    assert expert_main(["--rewrite", str(out), "--pass-bias", "3", "--out", str(cautious)]) == 0
    copy = load_checkpoint(cautious)
    assert copy["metadata"]["network"] == {**meta["network"], "pass_bias": 3.0}
    assert all(torch.equal(copy["policy"][k], v) for k, v in data["policy"].items())
    assert agents.load(cautious, game="skat").network.pass_bias == 3.0
    assert expert_main(["--rewrite", str(out), "--pass-bias", "nan", "--out", str(tmp_path / "z.pt")]) == 2
    assert "pass_bias must be a finite number" in capsys.readouterr().err
    # labels without move values cannot teach an expert
    assert expert_main([*common, "pretrain.soft_temperature=0", "--out", str(tmp_path / "x.pt")]) == 2
    assert "soft_temperature: must be > 0" in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_an_expert_with_features_reads_them_and_round_trips():
    from agents.networks import build_network
    from agents.skat_endgame_features import NUM_FEATURES

    base = load_checkpoint(SHIPPED)["metadata"]
    net = EndgameExpertNetwork(OBSERVATION_SIZE, base["num_actions"], [16], base=base["network"], features=True)
    assert net.spec["features"] is True and net.expert[0].in_features == OBSERVATION_SIZE + NUM_FEATURES
    assert "features" not in _network().spec  # the first shipped expert's spec has no such key
    again = build_network(net.policy_spec())
    again.load_state_dict(net.policy_state_dict())  # the feature tables are not part of the weights
    obs = _rows(PLAY, 6)
    assert torch.equal(again.policy_logits(obs), net.policy_logits(obs))


def test_searched_rows_name_a_teacher_that_searched_elsewhere():
    from train.pretrain.expert import searched_rows

    net = _network(from_trick=9)
    obs = _rows(PLAY, 2, n=3).numpy()  # trick 3: before the expert's tricks
    values = np.full((3, net.spec["num_actions"]), np.nan, np.float32)
    values[:, :2] = 1.0
    with pytest.raises(ValueError, match="no searched decisions from trick 9"):
        searched_rows({"obs": obs, "values": values}, net)
    with pytest.raises(ValueError, match="no move values"):
        searched_rows({"obs": obs}, net)


def test_the_pass_bias_moves_only_the_pass_logit_and_a_large_one_always_passes():
    from agents.neural import NeuralAgent
    from envs import skat_v0
    from envs.skat.actions import PASS

    net = _network()
    obs = torch.cat([_rows(AUCTION, 0), _rows(PLAY, 2), _rows(PLAY, 6)])
    with torch.no_grad():
        before = net.policy_logits(obs)
        net.set_pass_bias(2.5)
        after = net.policy_logits(obs)
    shift = after - before
    assert torch.allclose(shift[:8, PASS], torch.full((8,), 2.5))  # the base decides these rows
    others = torch.ones(shift.shape[1], dtype=torch.bool)
    others[PASS] = False
    assert torch.allclose(shift[:8][:, others], torch.zeros(1), atol=1e-6)
    late = after[8:].clone()
    late[:, PASS] = before[8:, PASS]  # the product's log-softmax moves every card by one constant per row
    assert torch.equal(late.argmax(1), before[8:].argmax(1))
    assert net.policy_spec()["pass_bias"] == 2.5
    net.set_pass_bias(0)
    assert "pass_bias" not in net.policy_spec()  # as the files written before it existed
    with pytest.raises(ValueError, match="pass_bias must be a finite number"):
        net.set_pass_bias(float("inf"))
    # a very large bias: the network passes whenever the auction lets it
    net.set_pass_bias(1e4)
    bot = NeuralAgent(net, "skat", greedy=True)
    env = skat_v0.env()
    passes = 0
    for deal in range(3):
        env.reset(seed=deal)
        for _ in env.agent_iter():
            ob, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = bot.act(ob)
            if ob["action_mask"][PASS]:
                assert action == PASS
                passes += 1
            env.step(action)
    assert passes >= 6


def test_anchor_from_weighs_the_base_by_trick_and_a_rewrite_keeps_it(tmp_path):
    net = _network(anchor=0.5, from_trick=5)
    obs = torch.cat([_rows(PLAY, 4), _rows(PLAY, 6), _rows(PLAY, 8)])  # tricks 5, 7 and 9
    net.set_anchor(0.5, [(9, 0.1), (7, 0.0)])  # unsorted pairs: the latest trick on a row wins
    with torch.no_grad():
        expert, base = torch.log_softmax(net.expert_logits(obs), 1), torch.log_softmax(net.base_logits(obs), 1)
        weight = torch.tensor([0.5] * 4 + [0.0] * 4 + [0.1] * 4)[:, None]
        assert torch.allclose(net.policy_logits(obs), expert + weight * base)
        one = obs[4:5]  # a single row (how an agent plays) takes the scalar path
        assert torch.allclose(net.policy_logits(one), expert[4:5])
    assert net.policy_spec()["anchor_from"] == [[7, 0.0], [9, 0.1]]
    with pytest.raises(ValueError, match="trick must be in 1..10"):
        net.set_anchor(0.5, [(0, 0.2)])
    with pytest.raises(ValueError, match="anchor must be >= 0"):
        net.set_anchor(0.5, [(7, float("nan"))])
    net.set_anchor(0.5)
    assert "anchor_from" not in net.policy_spec()  # as the files written before it existed

    shipped = "checkpoints/skat_exit_dagger.pt"
    out = tmp_path / "late.pt"
    assert expert_main(["--rewrite", shipped, "--anchor-from", "7:0", "--out", str(out)]) == 0
    loaded = agents.load(str(out), game="skat")
    spec = load_checkpoint(str(out))["metadata"]["network"]
    assert spec["anchor_from"] == [[7, 0.0]] and spec["anchor"] == 0.5
    original = load_checkpoint(shipped)["policy"]
    assert all(torch.equal(v, original[k]) for k, v in load_checkpoint(str(out))["policy"].items())
    assert loaded is not None
    with pytest.raises(SystemExit):
        expert_main(["--rewrite", shipped, "--anchor-from", "7", "--out", str(out)])
