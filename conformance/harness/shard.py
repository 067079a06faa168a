"""Shards: one deterministic part of a campaign, so that any job runner (a CI matrix,
Kubernetes indexed jobs, Slurm arrays) can run the parts on many machines.

Shard ``K/N`` (1 <= K <= N) owns the items whose 0-based index ``i`` in the campaign's own
order has ``i % N == K - 1``: the cases of a run in selection order (``bgconf run``), the
search batches of a fuzz campaign (``bgconf fuzz``), the games of a playout (``bgconf
playout``). Every item belongs to exactly one shard, and shard K's items do not depend on
what the other shards do, so the N shards together are exactly the unsharded campaign.
``bgconf merge`` joins the shards' reports (docs/campaigns.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Shard:
    """Shard ``k`` of ``n``."""

    k: int = 1
    n: int = 1

    def owns(self, index: int) -> bool:
        """Whether the item at 0-based ``index`` is this shard's."""
        return index % self.n == self.k - 1

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """``"K/N"`` -> Shard; raises ValueError unless 1 <= K <= N."""
        m = re.fullmatch(r"\s*([0-9]+)\s*/\s*([0-9]+)\s*", str(text))
        if not m:
            raise ValueError(f"{text!r} is not K/N (e.g. 2/8: the second of eight shards)")
        k, n = int(m.group(1)), int(m.group(2))
        if not 1 <= k <= n:
            raise ValueError(f"{text!r}: K must be 1 to N")
        return cls(k, n)


#: the whole campaign as one shard
WHOLE = Shard(1, 1)
