"""Game state beside the board: rule options, the cube, the match.

Rule options and their defaults (spec: cube.start, cube.max, cube.jacoby,
cube.beaver, cube.raccoon, opening.automatic-doubles, match.crawford,
score.backgammon-multiplier, opening.reroll-variant, session.winner-starts)::

    cube: true               the doubling cube is used
    max_cube: 64             highest cube value (a power of two), or null = no limit
    jacoby: false            money play: gammons count single while the cube is centred
    beavers: false           money play: a doubled player may beaver
    raccoons: false          money play: a beavered doubler may raccoon (needs beavers)
    automatic_doubles: 0     money play: at most n automatic doubles on opening ties
    crawford: true           match play: the Crawford rule
    backgammon_multiplier: 3 a backgammon counts 3 (or 4, by agreement) times the cube
    opening_reroll: false    seed 004: the opening player may throw both dice again
    winner_starts: false     seed 004: the winner of a single game starts the next one
    variant: standard        the game played: standard, nackgammon, hypergammon-1, -2 or -3
                             (spec: variant.option; its starting position and checker count)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import ModelError
from .position import VARIANTS

RULE_DEFAULTS: dict[str, Any] = {
    "cube": True,
    "max_cube": 64,
    "jacoby": False,
    "beavers": False,
    "raccoons": False,
    "automatic_doubles": 0,
    "crawford": True,
    "backgammon_multiplier": 3,
    "opening_reroll": False,
    "winner_starts": False,
    "variant": "standard",
}
CUBE_OWNERS = ("center", "x", "o")
MOMENTS = ("before_roll", "after_roll", "double_offered", "beaver_offered", "raccoon_offered")
CUBE_ACTIONS = ("double", "take", "drop", "beaver", "raccoon")
RESULTS = ("single", "gammon", "backgammon")


class GameStateError(ModelError):
    """Rule options, cube or match state that cannot be (names the field and the fix)."""


def _is_power_of_two(n: Any) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 1 and n & (n - 1) == 0


def effective_rules(overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults merged with ``overrides``; raises GameStateError for an unknown
    option or a value it cannot take."""
    rules = dict(RULE_DEFAULTS)
    for name, value in (overrides or {}).items():
        if name not in RULE_DEFAULTS:
            raise GameStateError(f"unknown rule option {name!r}; options: {', '.join(RULE_DEFAULTS)}")
        rules[name] = value
    for name in ("cube", "jacoby", "beavers", "raccoons", "crawford", "opening_reroll", "winner_starts"):
        if not isinstance(rules[name], bool):
            raise GameStateError(f"rule option {name} is true or false, not {rules[name]!r}")
    if rules["max_cube"] is not None and not _is_power_of_two(rules["max_cube"]):
        raise GameStateError(f"max_cube is a power of two or null, not {rules['max_cube']!r}")
    ad = rules["automatic_doubles"]
    if not isinstance(ad, int) or isinstance(ad, bool) or ad < 0:
        raise GameStateError(f"automatic_doubles is a whole number >= 0, not {ad!r}")
    if rules["backgammon_multiplier"] not in (3, 4):
        raise GameStateError(f"backgammon_multiplier is 3 or 4, not {rules['backgammon_multiplier']!r}")
    if rules["variant"] not in VARIANTS:
        raise GameStateError(f"variant is one of {', '.join(VARIANTS)}, not {rules['variant']!r}")
    if rules["raccoons"] and not rules["beavers"]:
        raise GameStateError("raccoons: true needs beavers: true (a raccoon answers a beaver)")
    return rules


@dataclass(frozen=True)
class Cube:
    """The doubling cube: ``value`` (power of two >= 1), ``owner`` (center, x, o)."""

    value: int = 1
    owner: str = "center"

    def __post_init__(self) -> None:
        if not _is_power_of_two(self.value):
            raise GameStateError(f"cube value must be a power of two (1, 2, 4, ...), not {self.value!r}")
        if self.owner not in CUBE_OWNERS:
            raise GameStateError(f"cube owner is center, x or o, not {self.owner!r}")
        if self.owner != "center" and self.value < 2:
            raise GameStateError("an owned cube has been turned, so its value is at least 2")

    @classmethod
    def from_dict(cls, data: Any) -> "Cube":
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise GameStateError(f"cube is {{value, owner}}, not {data!r}")
        return cls(data.get("value", 1), data.get("owner", "center"))

    def to_dict(self) -> dict:
        return {"value": self.value, "owner": self.owner}


@dataclass(frozen=True)
class Match:
    """Match state: ``length`` (0 = money play), ``score`` {x, o}, whether this game is
    the Crawford game, and whether the Crawford game has been played (post-Crawford)."""

    length: int = 0
    score: dict = field(default_factory=lambda: {"x": 0, "o": 0})
    crawford: bool = False
    post_crawford: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.length, int) or isinstance(self.length, bool) or self.length < 0:
            raise GameStateError(f"match length is a whole number >= 0 (0 = money play), not {self.length!r}")
        for side in ("x", "o"):
            n = self.score.get(side, 0)
            if not isinstance(n, int) or isinstance(n, bool) or n < 0:
                raise GameStateError(f"score of {side} is a whole number >= 0, not {n!r}")
            if self.length and n >= self.length:
                raise GameStateError(
                    f"score of {side} is {n} in a match to {self.length}: at {self.length} or more the match"
                    f" is over; scores before a game are below the length")
        if self.crawford and self.post_crawford:
            raise GameStateError("a game cannot be both the Crawford game and post-Crawford")
        if (self.crawford or self.post_crawford) and not self.length:
            raise GameStateError("Crawford and post-Crawford are match-play states; money play has neither")
        top = max(self.score.get("x", 0), self.score.get("o", 0))
        if self.crawford and top != self.length - 1:
            raise GameStateError(f"the Crawford game needs a player at {self.length - 1} (one point from"
                                 f" the match), but the leader has {top}")
        if self.crawford and min(self.score.get("x", 0), self.score.get("o", 0)) == self.length - 1:
            raise GameStateError("with both players one point from the match the game is not the Crawford game")
        if self.post_crawford and top != self.length - 1:
            raise GameStateError("post-Crawford games only follow the Crawford game, when a player is one point"
                                 " from the match")

    @property
    def money(self) -> bool:
        return self.length == 0

    @classmethod
    def from_dict(cls, data: Any) -> "Match":
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise GameStateError(f"match is {{length, score, crawford, post_crawford}}, not {data!r}")
        score = data.get("score") or {}
        return cls(data.get("length", 0), {"x": score.get("x", 0), "o": score.get("o", 0)},
                   bool(data.get("crawford", False)), bool(data.get("post_crawford", False)))

    def to_dict(self) -> dict:
        return {"length": self.length, "score": dict(self.score), "crawford": self.crawford,
                "post_crawford": self.post_crawford}
