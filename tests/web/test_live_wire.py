"""The live tables' messages both ways (`cardwar.web.live.wire`) are the ones docs/api.md's
tables list (docs/api.md#the-sockets), field for field; each is written once, as JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from cardwar.web.live.table import Given, Reacted
from cardwar.web.live.wire import OUT, TYPES, Played, Pong, Said, Shown, body, read_message, write

API_MD = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
NAME = re.compile(r"`([a-z_]+)`")
WORDS = {"null", "true", "false"}


def rows(header: str) -> list[list[str]]:
    """The cells of the rows of api.md's table whose header row is `header`."""
    lines = API_MD.splitlines()
    start = lines.index(header)
    found = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        found.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return found


def top_level_names(cell: str) -> list[str]:
    """The field names a cell lists: the backticked names outside any parentheses."""
    depth, outside = 0, []
    for char in cell:
        depth += char == "("
        if depth == 0:
            outside.append(char)
        depth -= char == ")" and depth > 0
    return [name for name in NAME.findall("".join(outside)) if name not in WORDS]


def documented(header: str) -> dict[str, list[str]]:
    """Each documented message type and the fields its row lists."""
    found: dict[str, list[str]] = {}
    for cells in rows(header):
        for kind in NAME.findall(cells[0]):
            found[kind] = top_level_names(cells[1])
    return found


def test_every_message_the_server_sends_is_a_type_with_the_documented_fields() -> None:
    """One outbound type per row of 'What the server sends', its fields those the row names
    (the whole table's are the ones its own section lists)."""
    sent = {kind: list(names) for kind, names in OUT.values()}
    table = documented("| type | fields | when |")
    section = API_MD.split("### The table a device is shown")[1]
    listed = section.split("`:", 1)[0].replace('"type": "table",', "")
    table["table"] = re.findall(r'"(\w+)"', re.sub(r"\[\{.*?\]", "", listed, flags=re.S))
    assert table.keys() == sent.keys()
    for kind, names in table.items():
        assert names == sent[kind], kind


def test_every_message_a_socket_sends_is_a_type_with_the_documented_fields() -> None:
    """One inbound model per row of 'What a socket sends', its fields those the row names."""
    table = documented("| type | fields | who | what it does |")
    assert tuple(table) == TYPES
    for kind, names in table.items():
        model = type(read_message(json.dumps({"type": kind, **example(kind)})))
        assert issubclass(model, BaseModel)
        assert sorted(set(model.model_fields) - {"type"}) == sorted(names), kind


def example(kind: str) -> dict[str, Any]:
    """The fields a message of `kind` cannot go without."""
    return {"react": {"emoji": "👏"}, "give": {"seat": 1}}.get(kind, {})


def test_a_message_is_written_once_as_the_json_every_socket_gets() -> None:
    """`write` gives the message's type and its JSON text; what only the service reads
    (`Given.play`) is not written, and a played message's match and tally only once there."""
    given = write(Given(1, "Computer", play=True))
    assert given.type == "given"
    assert json.loads(given.text) == {"type": "given", "seat": 1, "name": "Computer"}
    assert write(Reacted(0, "😮")).text == '{"type":"reaction","seat":0,"emoji":"😮"}'
    assert write(Pong()).text == '{"type":"pong"}'
    played = body(Played("flips", [], 1, [], {"battles": 1}))
    assert "match" not in played and "tally" not in played and "speed" not in played
    assert body(Played("host", [], 1, [], {}, speed="slow"))["speed"] == "slow"
    shown = Shown(None, "w", {}, 1, None, [], {}, None, None, [], [], [], None, [], 120)
    assert body(shown)["match"] is None and body(shown)["type"] == "table"


def test_a_message_goes_between_processes_with_its_number_at_its_table() -> None:
    """A socket shown the table lets go a message told before (`Said.number`): the number is
    read the same from what another process carried, and the text is the device's, as written."""
    said = write(Played("host", [], 10, [], {"seed": 7, "battles": 30}))._replace(number=12)
    assert Said.heard(said.carried) == said and said.text.startswith('{"type":"played"')
    assert write(Pong()).number == 0 and Said.heard(write(Pong()).carried).number == 0
