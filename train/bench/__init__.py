"""Benchmarks: speed measured side by side with peers in the same run (never by timed unit tests).

    python -m train.bench env skat|thirtyone|all [--seconds 3]   # envs and rules cores vs OpenSpiel
    python -m train.bench trainer --game skat                    # our trainer vs sb3-contrib MaskablePPO
    python -m train.bench runtime --runs local:1,ray:2           # local vs Ray rollout collection
    python -m train.bench solver --positions 1000                # the Skat double-dummy solver
    python -m train.bench nfsp --game kuhn_poker                 # NFSP exploitability vs OpenSpiel's NFSP
    python -m train.bench vector skat --batches 64,1024,4096     # the batched engines vs the AEC loop
    python -m train.bench trainer --collections envs,batched     # the trainer's two collection paths
    python -m train.bench decisions pimc pimc:preset=endgame     # CPU time per decision, same positions

``python -m train.bench_train`` and ``python -m train.ray_bench`` remain as aliases of trainer and runtime.
Each benchmark's own ``--help`` lists its options.
"""
