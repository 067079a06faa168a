"""The JSON Lines report of a playout (``bgconf playout --report``): header, one line per game
and per mismatch, footer; drawn from the ``Totals`` of ``conformance.harness.playout``."""

from __future__ import annotations

from datetime import datetime, timezone

from conformance import __version__

from conformance.harness.openspiel import GAME_PARAMETERS
from conformance.harness.playout import SITUATIONS, Totals
from conformance.harness.shard import Shard


def report_lines(engine: str, version: str, seed: int, games: int | list[int], shard: Shard, totals: Totals,
                 incomplete: bool, error: str | None, interrupted: str | None, argv: list[str],
                 variant: str = "standard") -> list[dict]:
    """The report's lines (dicts, one per JSON line): ``games`` is the number of games asked
    for, or ``[G]`` when one game was replayed (then no shard is recorded); ``interrupted``
    is None, "SIGINT" or "SIGTERM"; ``error`` a conversion error that ended the playout;
    ``variant`` the game played (spec: variant.option), recorded in the header with OpenSpiel's
    game parameters for it (``harness.openspiel.GAME_PARAMETERS``)."""
    lines: list[dict] = [{
        "type": "header", "tool": "bgconf playout", "suite_version": __version__,
        "engine": {"name": engine, "version": version, "game": "backgammon",
                   **({"parameters": {"scoring_type": "full_scoring", **GAME_PARAMETERS[variant]}}
                      if engine == "openspiel" else {})},
        "variant": variant,
        "seed": seed, "games": games,
        **({"shard": str(shard)} if shard.n > 1 and not isinstance(games, list) else {}),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "argv": argv}]
    for g in totals.games:
        lines.append({"type": "game", "game": g.game, "plies": g.plies, "positions": g.positions,
                      "status": g.status, "engine": {"winner": g.winner, "points": g.engine_points},
                      "reference": g.reference})
    for m in totals.mismatches:
        line = {"type": "mismatch", "kind": m.kind, "game": m.game, "ply": m.ply,
                "position": m.position.to_wire(), "spec": m.anchors, "case": m.case}
        if m.kind == "legal_plays":
            line.update(dice=list(m.dice), missing=m.missing, extra=m.extra, reasons=m.reasons,
                        engine_plays=m.detail["engine_plays"], reference_plays=len(m.expected))
        else:
            line.update(detail=m.detail)
        lines.append(line)
    lines.append({"type": "footer", "games": len(totals.games), "truncated": totals.truncated,
                  "positions": totals.positions, "mismatches": len(totals.mismatches),
                  "wall_s": round(totals.wall_s, 3), "engine_s": round(totals.engine_s, 3),
                  "reference_s": round(totals.reference_s, 3),
                  "situations": {k: totals.coverage.get(k, 0) for k in SITUATIONS}, "incomplete": incomplete,
                  "interrupted": interrupted or False, **({"error": error} if error else {})})
    return lines
