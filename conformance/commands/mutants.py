"""``bgconf mutants``: the mutation score (``conformance.harness.mutants``) printed per mutant and
per spec section; exit 1 when a mutant survives every case.
"""

from __future__ import annotations

from conformance.commands.common import EXIT_FAILED, EXIT_OK, load_cases


def add_parser(sub) -> None:
    mut = sub.add_parser("mutants", help="mutation score: run mutant engines, each breaking one rule",
                         description="Run every mutant of the reference engine (each breaks one rule) on the must"
                                     " cases; a mutant no case kills means a missing case. Exit 1 if one survives.")
    mut.add_argument("--cases", action="append", metavar="PATH")
    mut.add_argument("-v", "--verbose", action="store_true", help="list every mutant, not only survivors")
    mut.set_defaults(func=cmd_mutants)


def cmd_mutants(args) -> int:
    from collections import defaultdict

    from conformance.harness.mutants import score

    suite = load_cases(args.cases)
    table: dict = defaultdict(lambda: [0, 0])
    survivors = []
    for mutant, killers in score(suite.cases):
        section = mutant.spec.split(".", 1)[0]
        table[section][1] += 1
        table[section][0] += bool(killers)
        if args.verbose or not killers:
            print(f"{'killed  ' if killers else 'SURVIVED'} {mutant.name:<28} {mutant.spec:<26} "
                  f"{len(killers):>3} cases  {mutant.what}")
        if not killers:
            survivors.append(mutant.name)
    print(f"{'section':<10} killed / mutants")
    for section, (killed, total) in sorted(table.items()):
        print(f"{section:<10} {killed:>6} / {total}")
    total = sum(t for _, t in table.values())
    print(f"mutation score: {total - len(survivors)} / {total}")
    return EXIT_FAILED if survivors else EXIT_OK
