"""Profiles: what a certificate covers (README, Certification).

- ``movement``: checker play: legal plays, play checks, applied plays.
- ``money``: movement plus scoring, the cube, the opening roll and session
  transitions in money play.
- ``match``: movement plus scoring, the cube, the opening roll and match
  transitions in match play.
- ``complete``: every case, the Position ID and XGID codecs and perft included.
- ``bot``: for engines that choose plays (bots, a game's computer player): the chosen-play
  form of every legal_plays case, in every scenario, must be a legal play (spec/protocol.md,
  chosen-play); nothing else is asked.
- ``codec``: the codec cases alone (decoding, encoding and refusals), for libraries that read
  and write position ids; a case counts for the formats the engine declares (``codec.xgid``, ...).
"""

from __future__ import annotations

from conformance.cases import Case

MOVEMENT_KINDS = frozenset({"legal_plays", "play_check", "apply_play"})
PROFILES = ("movement", "money", "match", "complete", "bot", "codec")
#: profiles that ask the chosen-play forms of their cases alone (``selection.asked``)
CHOSEN_ONLY = frozenset({"bot"})
#: Capabilities an engine must declare for a profile's certificate; cases of other
#: capabilities count only when the engine declares them. None: every capability.
REQUIRED: dict[str, frozenset | None] = {
    "movement": frozenset({"legal-plays"}),
    "money": frozenset({"legal-plays", "game-result", "cube", "opening-roll"}),
    "match": frozenset({"legal-plays", "game-result", "cube", "match"}),
    "complete": None,
    "bot": frozenset({"chosen-play"}),
    "codec": frozenset(),
}


def in_profile(case: Case, profile: str) -> bool:
    """Whether ``case`` belongs to ``profile`` (one of PROFILES). Raises KeyError."""
    if profile not in PROFILES:
        raise KeyError(f"unknown profile {profile!r}; profiles: {', '.join(PROFILES)}")
    if profile in CHOSEN_ONLY:
        return case.kind == "legal_plays"
    if profile == "codec":
        return case.kind == "codec"
    if profile == "complete" or case.kind in MOVEMENT_KINDS:
        return True
    if profile == "movement" or case.kind in ("codec", "perft"):
        return False
    money = case.match is None or case.match.money
    return (profile == "money") == money
