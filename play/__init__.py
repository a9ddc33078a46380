"""Play Skat and Thirty-One against the project's agents: ``python -m play`` (terminal) and ``--web``."""
