"""``bgconf new-id [-n N]``: print N fresh case ids, used by no case of the bundled suite and not
retired; exit 0, or 2 when fewer are free.
"""

from __future__ import annotations

import secrets

from conformance.cases import ID_ALPHABET, load_suite, resources
from conformance.commands.common import EXIT_OK, EXIT_USAGE, err, positive_int


def add_parser(sub) -> None:
    new = sub.add_parser("new-id", help="print fresh case ids")
    new.add_argument("-n", "--count", type=positive_int, default=1)
    new.set_defaults(func=cmd_new_id)


def cmd_new_id(args) -> int:
    suite = load_suite()
    used = {c.id for c in suite.cases} | set(resources.retired_ids())
    free = len(ID_ALPHABET) ** 4 - len(used)
    if args.count > free:
        err(f"only {free} ids are free; ask for fewer")
        return EXIT_USAGE
    made = set()
    while len(made) < args.count:
        cid = "bg-" + "".join(secrets.choice(ID_ALPHABET) for _ in range(4))
        if cid not in used:
            made.add(cid)
    print("\n".join(sorted(made)))
    return EXIT_OK
