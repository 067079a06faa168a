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

These profiles hold the cases of the standard game. Each of ``movement``, ``money``, ``match``,
``complete`` and ``codec`` has a profile per variant (spec: variant.option), named
``PROFILE-VARIANT`` (``movement-hypergammon-3``, ``complete-nackgammon``, ...: VARIANT_PROFILES):
the same selection among the cases of that variant. ``bgconf certify --profile movement
--variant hypergammon-3`` certifies ``movement-hypergammon-3``.
"""

from __future__ import annotations

from conformance.cases import Case
from conformance.model import VARIANTS

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
#: the profiles that have a profile per variant beside the standard game's
VARIANT_BASES = ("movement", "money", "match", "complete", "codec")
VARIANT_PROFILES = tuple(f"{base}-{variant}" for variant in VARIANTS if variant != "standard" for base in VARIANT_BASES)
#: every profile name: the standard game's, then the variants'
ALL_PROFILES = PROFILES + VARIANT_PROFILES
REQUIRED.update({f"{base}-{variant}": REQUIRED[base] for base in VARIANT_BASES for variant in VARIANTS
                 if variant != "standard"})


def split_profile(profile: str) -> tuple[str, str]:
    """``(base profile, variant)`` of a profile name: ``movement`` -> ``("movement", "standard")``,
    ``movement-hypergammon-3`` -> ``("movement", "hypergammon-3")``. Raises KeyError for a name
    that is not one of ALL_PROFILES."""
    if profile in PROFILES:
        return profile, "standard"
    if profile in VARIANT_PROFILES:
        base, variant = profile.split("-", 1)
        return base, variant
    raise KeyError(f"unknown profile {profile!r}; profiles: {', '.join(ALL_PROFILES)}")


def variant_profile(profile: str | None, variant: str) -> str | None:
    """The profile of ``variant`` named by a base ``profile`` and ``--variant``: ``("movement",
    "hypergammon-3")`` -> ``movement-hypergammon-3``; the standard game's profile is the base
    itself. Raises KeyError when that profile does not exist (``bot`` has no variants)."""
    if profile is None or variant == "standard" or profile.endswith("-" + variant):
        return profile
    name = f"{profile}-{variant}"
    if name not in VARIANT_PROFILES:
        raise KeyError(f"profile {profile!r} has no {variant} form; those with one: {', '.join(VARIANT_BASES)}")
    return name


def in_profile(case: Case, profile: str) -> bool:
    """Whether ``case`` belongs to ``profile`` (one of ALL_PROFILES): a case of the profile's
    variant (its rules' ``variant``; spec: variant.option) that the base profile holds.
    Raises KeyError."""
    profile, variant = split_profile(profile)
    if case.effective_rules.get("variant", "standard") != variant:
        return False
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
