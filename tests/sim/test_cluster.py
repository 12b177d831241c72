"""`cardwar simulate --dask`: a run sharded over a Dask cluster adds up to exactly what one
machine finds for the same seed (or the same deck), here on a LocalCluster of two workers."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from cardwar import Rules
from cardwar.cli import main
from cardwar.sim.exact.checkpoint import Checkpoint, Job
from cardwar.sim.exact.deck import SmallDeck
from cardwar.sim.exact.driver import play_every_deal
from cardwar.sim.exact.job import run_job
from cardwar.sim.runs.cluster import simulate_on_dask
from cardwar.sim.runs.hands import Hands
from cardwar.sim.runs.run import simulate

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A LocalCluster of two single-threaded worker processes; yields its address.

    Its scheduler serves HTTP (health, metrics) even with the dashboard off, on port 8787
    unless told otherwise, and warns (an error here) when another cluster on the machine has
    that port: it gets a port of its own on the loopback address, the dashboard still off."""
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False},
    ) as local:
        yield local.scheduler_address


def test_a_seed_on_the_cluster_gives_the_one_machine_tally(cluster: str) -> None:
    """The same rounds, sharded over two workers, tally exactly as on this machine."""
    rules = Rules.preset("peace")
    seen: list[int] = []
    spread = simulate_on_dask(cluster, rules, 30_000, seed=5, progress=seen.append)
    here = simulate(rules, 30_000, seed=5)
    assert spread.to_dict(2, histograms=True) == here.to_dict(2, histograms=True)
    assert sum(seen) == 30_000 and len(seen) > 1


def test_given_hands_and_records_on_the_cluster_give_the_one_machine_tally(cluster: str) -> None:
    """--hands and --records shard like any run: the same figures and the same longest rounds."""
    rules = Rules.preset("classic")
    hands = Hands.parse([["AS", "AH", "AD", "AC"], "rest"], 2)
    spread = simulate_on_dask(cluster, rules, 20_000, seed=3, hands=hands, records=5)
    here = simulate(rules, 20_000, seed=3, hands=hands, records=5)
    assert spread.to_dict(2, histograms=True) == here.to_dict(2, histograms=True)
    assert spread.records.tolist() == here.records.tolist()


def test_every_deal_on_the_cluster_matches_one_machine(cluster: str, tmp_path: Path) -> None:
    """A deck's deals, sharded by ranges of sequences, add up to the single run; stopped after
    a shard, the checkpoint resumes shard by shard to the same figures."""
    rules = Rules.from_dict({"gather": "natural", "war_down": 0, "battle_limit": None})
    deck = SmallDeck.parse("3x4")
    whole = play_every_deal(rules, deck).to_dict()
    job = Job(deck, rules, 0, deck.sequences)
    spread = run_job(Checkpoint.open(job, None), dask=cluster)
    assert spread.complete and spread.found is not None and spread.found.to_dict() == whole
    path = tmp_path / "run.json"
    stopped = run_job(Checkpoint.open(job, path), dask=cluster, stopping=lambda: True)
    assert 0 < stopped.sequences_done < deck.sequences
    resumed = run_job(Checkpoint.open(job, path), dask=cluster)
    assert resumed.complete and resumed.found is not None and resumed.found.to_dict() == whole


def test_the_command_line_runs_on_the_cluster(cluster: str) -> None:
    """--dask ADDRESS prints the same figures as a run on this machine."""
    printed = []
    for extra in ([], ["--dask", cluster]):
        out = io.StringIO()
        argv = ["simulate", "--rounds", "5000", "--seed", "9", "--json", *extra]
        assert main(argv, Console(file=out)) == 0
        data = json.loads(out.getvalue())
        printed.append(
            {k: v for k, v in data.items() if k not in {"seconds", "battles_per_second", "workers"}}
        )
    assert printed[0] == printed[1]


def test_no_scheduler_at_the_address_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    """An address where no Dask scheduler answers: status 2, and the address named."""
    argv = ["simulate", "--rounds", "10", "--dask", "tcp://127.0.0.1:9"]
    assert main(argv, Console(file=io.StringIO())) == 2
    assert "--dask tcp://127.0.0.1:9: no Dask scheduler answers there" in capsys.readouterr().err


def test_a_shard_file_on_the_cluster_is_the_one_machine_file(cluster: str, tmp_path: Path) -> None:
    """--shard-file with --dask writes a line a shard as each comes back: the same lines (but
    their seconds, in another order) as on this machine, and the same figures."""
    job = ["simulate", "--enumerate", "10x1", "--shard-size", "700000", "--json"]
    lines = []
    for name, extra in (("here", []), ("there", ["--dask", cluster])):
        path = tmp_path / f"{name}.shards"
        assert main([*job, "--shard-file", str(path), *extra], Console(file=io.StringIO())) == 0
        rows = [json.loads(line) for line in path.read_text().splitlines()[1:]]
        lines.append(sorted(json.dumps({**row, "seconds": 0}) for row in rows))
    assert lines[0] == lines[1] and len(lines[0]) == 6
