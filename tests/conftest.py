"""Settings shared by the tests.

hypothesis's per-example deadline is a timing assertion: on a busy machine a correct property
fails only because an example took longer than 200 ms. The tests measure no time (speed lives
in benchmarks/), so every property runs without a deadline.
"""

from hypothesis import settings

settings.register_profile("bgconf", deadline=None)
settings.load_profile("bgconf")
