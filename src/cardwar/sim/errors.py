"""The simulator's errors: each a CardwarError of its own kind, its message opening with the
field it is about (`hands`, `records`, `deck`, ...), never a command-line flag; the command line
turns a field into its flag (`cardwar.cli.shared.FLAGS`)."""

from __future__ import annotations

from cardwar.errors import CardwarError, DealError


class RunError(CardwarError):
    """A run's own value out of range: `rounds`, `workers`, `first`, `records`."""


class HandsError(DealError):
    """Hands for a run's seats that cannot be dealt: a card named twice, a seat with none."""


class DealsFileError(DealError):
    """A line of a deals file that cannot be played, named by its number."""


class DeckError(CardwarError):
    """A small deck that cannot be played deal by deal: its name, its size, or a range of its
    sequences outside it."""


class CheckpointError(CardwarError):
    """A checkpoint that cannot be read or written, or that was written for another job."""


class ClusterError(CardwarError):
    """A Dask cluster that does not answer, or Dask not installed."""


class ShardError(CardwarError):
    """A shard file that cannot be read or written, written for another job, or holding a shard
    that is missing, repeated or altered: the message names the file, the line and the shard."""


class DeviceError(CardwarError):
    """A device asked for that this machine does not have (`device cuda` with no CUDA GPU)."""
