"""How the command-line tools report a user's mistake: one line ``error: ...`` on stderr, exit code 2.

An agent that failed (``arena.AgentError``, ``agents.user.AgentBuildError``) carries its own traceback
as ``details``: it is printed first, so the user sees where their code broke, then the one-line message
saying which agent and seat failed.
"""

from __future__ import annotations

import sys

EXIT_USAGE = 2


def report_error(error: BaseException) -> int:
    details = getattr(error, "details", "")
    if details:
        print(details.rstrip(), file=sys.stderr)
    print(f"error: {error}", file=sys.stderr)
    return EXIT_USAGE
