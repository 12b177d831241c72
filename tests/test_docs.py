"""The docs hold to the code: docs/rules.md, `cardwar round --help` and the rules say the same
things; docs/api.md names every route and status of the server's OpenAPI document; README.md is
a front door that links every other document; the longest game docs/findings.md links is the
game it tells; and every relative link in README.md, docs/*.md and benchmarks/README.md leads to
a file and a heading that exist."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cardwar import PRESETS, Reason, Round, Rules
from cardwar.cli import main
from cardwar.rules import describe_fields
from cardwar.web import Settings, create_app

from helpers import ClientFactory

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = (ROOT / "docs" / "rules.md").read_text()
API_MD = (ROOT / "docs" / "api.md").read_text()
README = (ROOT / "README.md").read_text()
FINDINGS = (ROOT / "docs" / "findings.md").read_text()
DOCUMENTS = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "benchmarks" / "README.md",
]
# What README's "Where to read next" links: every document of the project.
READ_NEXT = [
    "docs/rules.md",
    "docs/api.md",
    "docs/cli.md",
    "docs/findings.md",
    "docs/decisions.md",
    "docs/architecture.md",
    "docs/testing.md",
    "benchmarks/README.md",
]
TAG = re.compile(r"<[^>]+>")


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header row starts with `header`, cells stripped."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = line.strip("|").split("|")
        rows.append([TAG.sub("", cell).strip().strip("`") for cell in cells])
    return rows


def test_the_readme_points_at_the_rules_and_the_api() -> None:
    """The README links the project's own rules and API, not a contract outside the repository."""
    readme = (ROOT / "README.md").read_text()
    assert "](docs/rules.md" in readme
    assert "](docs/api.md" in readme


def test_the_readme_is_a_front_door() -> None:
    """README.md is short: what cardwar is comes first, before any set-up, then the two commands
    as a block of their own; and it links every other document, each of which exists."""
    lines = README.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines"
    pitch = README.split("\n\n")[1]
    assert pitch.startswith("cardwar is the card game War") and "dev.py" not in pitch
    assert README.index(pitch) < README.index("dev.py")
    block = re.search(r"^```sh\n(.*?)^```", README, re.MULTILINE | re.DOTALL)
    assert block, "README gives its commands in a shell block"
    commands = [line.split("#")[0].strip() for line in block[1].splitlines()]
    assert commands == ["python3 dev.py play", "python3 dev.py test"]
    for document in READ_NEXT:
        assert f"]({document})" in README, f"README does not link {document}"
        assert (ROOT / document).exists(), document


def test_the_presets_table_is_the_presets() -> None:
    """Every preset's row in docs/rules.md holds exactly the preset's values."""
    header = table_rows(RULES_MD, "preset")
    fields = list(describe_fields())
    written = {row[0]: dict(zip(fields, row[1:], strict=True)) for row in header}
    expected = {
        name: {
            field: "null" if value is None else str(value).lower() if isinstance(value, bool)
            else str(value)
            for field, value in rules.to_dict().items()
        }
        for name, rules in PRESETS.items()
    }  # fmt: skip
    assert written == expected


def test_every_ending_is_explained() -> None:
    """The endings table (docs/rules.md#endings) has one row per reason, and nothing else."""
    reasons = [row[0] for row in table_rows(RULES_MD, "reason")]
    assert reasons == [reason.value for reason in Reason]


@pytest.mark.parametrize("field", list(describe_fields()))
def test_every_field_has_its_section_and_values(field: str) -> None:
    """Each rule field has a heading naming it, and every choice or bound is written out."""
    assert re.search(rf"^### .+`{field}`", RULES_MD, re.MULTILINE)
    described = describe_fields()[field]
    words = [str(choice).lower() for choice in described.get("choices") or []]
    if "min" in described and field != "hand_size":  # hand_size's bound depends on players
        words += [str(described["min"]), str(described["max"])]
    for word in words:
        assert f"`{word}`" in RULES_MD


def test_round_help_lists_every_preset_and_field_with_its_values() -> None:
    """`cardwar round --help` names each preset and each field with what it allows."""
    out = io.StringIO()
    with pytest.raises(SystemExit) as exit_, contextlib.redirect_stdout(out):
        main(["round", "--help"], Console(file=io.StringIO()))
    assert exit_.value.code == 0
    text = out.getvalue()
    for name in PRESETS:
        assert re.search(rf"^  {name} +\S", text, re.MULTILINE)
    for name, field in describe_fields().items():
        line = next(line for line in text.splitlines() if line.startswith(f"  {name} "))
        if "min" in field:
            assert f"{field['min']}..{field['max']}" in line
        else:
            assert all(str(choice).lower() in line for choice in field["choices"])
    assert "docs/rules.md" in text


# -- docs/api.md and the server's OpenAPI document ------------------------------------------------

ROUTE_LINE = re.compile(r"^`(GET|POST|PUT|PATCH|DELETE) (/\S*)` → `(\d{3})`", re.MULTILINE)


def without_code_blocks(text: str) -> str:
    """The text with its fenced code blocks blanked out (their lines kept, empty)."""
    return re.sub(r"^```.*?^```", lambda m: "\n" * m[0].count("\n"), text, flags=re.M | re.S)


def sections(text: str) -> list[tuple[str, str]]:
    """Each heading of a markdown text with the text under it, up to the next heading."""
    parts = re.split(r"^(#{1,6} .*)$", without_code_blocks(text), flags=re.MULTILINE)
    return list(zip(parts[1::2], parts[2::2], strict=True))


def route_sections(text: str) -> dict[tuple[str, str], str]:
    """The section of each route, by (method, path): the one whose first line names it."""
    found: dict[tuple[str, str], str] = {}
    for heading, body in sections(text):
        route = ROUTE_LINE.match(body.lstrip("\n"))
        if route is not None:
            key = (route[1], route[2])
            assert key not in found, f"{route[1]} {route[2]} has two sections"
            found[key] = heading + body
    return found


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The OpenAPI document of a server over a fresh database."""
    guard = create_app(Settings(db=tmp_path_factory.mktemp("openapi") / "cardwar.db"))
    app: Any = guard.app  # the FastAPI app inside its guard
    yield app.openapi()
    app.state.rounds.close()


def operations(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every operation of an OpenAPI document, by (method, path)."""
    return {
        (method.upper(), path): operation
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }


def test_every_route_has_its_section_in_the_api_doc(openapi: dict[str, Any]) -> None:
    """Each route of the OpenAPI document has one section in docs/api.md, whose first line names
    its method, its path and its success status; and the doc has no section for a route that
    is not there."""
    documented = route_sections(API_MD)
    assert set(documented) == set(operations(openapi))
    for (method, path), operation in operations(openapi).items():
        success = next(code for code in operation["responses"] if code.startswith("2"))
        first = ROUTE_LINE.search(documented[(method, path)])
        assert first is not None and first[3] == success, f"{method} {path}: not {success}"


def test_every_documented_status_is_explained_in_its_routes_section(
    openapi: dict[str, Any],
) -> None:
    """Every status the OpenAPI document lists for a route is written in that route's section of
    docs/api.md, and in the table of errors."""
    documented = route_sections(API_MD)
    errors = {row[0] for row in table_rows(API_MD, "status")}
    for key, operation in operations(openapi).items():
        section = documented[key]
        for status in operation["responses"]:
            assert f"`{status}`" in section, f"{' '.join(key)}: status {status} is not explained"
            assert status in errors, f"status {status} is not in the table of errors"


# -- links ----------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text in lower case, without punctuation, each space
    a hyphen."""
    text = TAG.sub("", heading.lstrip("#").strip()).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor of a markdown text: its headings' (GitHub numbers repeats -1, -2, ...) and
    those of its `<a id="...">` and `<a name="...">` tags."""
    seen: dict[str, int] = {}
    found = set()
    for heading, _ in sections(text):
        base = slug(heading)
        repeat = seen.get(base, 0)
        seen[base] = repeat + 1
        found.add(base if repeat == 0 else f"{base}-{repeat}")
    found |= set(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", text))
    return found


def relative_links(text: str) -> list[str]:
    """The targets of a markdown text's links and images that lead within the repository."""
    prose = re.sub(r"`[^`]*`", "", without_code_blocks(text))
    targets = re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
    return [target for target in targets if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def broken_links(document: Path) -> list[str]:
    """The relative links of `document` that lead to no file, or to no anchor in it."""
    broken = []
    for target in relative_links(document.read_text()):
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.exists():
            broken.append(f"{target}: no file {path}")
        elif anchor and (linked.suffix != ".md" or anchor not in anchors(linked.read_text())):
            broken.append(f"{target}: no heading or anchor #{anchor} in {linked.name}")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_relative_link_resolves(document: Path) -> None:
    """Each relative link in README.md and docs/*.md names a file that exists and, after `#`, a
    heading (by GitHub's anchor for it) or an `<a id>` of that file."""
    assert relative_links(document.read_text()), f"{document.name} links nothing"
    assert broken_links(document) == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    """The link check notices a missing file, a missing anchor and a missing heading."""
    (tmp_path / "other.md").write_text('# Other\n\n## A `field` — its words\n<a id="x"></a>\n')
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#a-field--its-words) [ok](other.md#x) [ok](#page)"
        " [ok](https://example.org/nowhere) `[not a link](gone.md)`\n"
        "[bad](gone.md) [bad](other.md#nowhere) [bad](#nothing)\n"
    )
    assert broken_links(page) == [
        "gone.md: no file gone.md",
        "other.md#nowhere: no heading or anchor #nowhere in other.md",
        "#nothing: no heading or anchor #nothing in page.md",
    ]


HERE = Path(__file__)
ROOT = HERE.parent.parent
CITED = re.compile(r"docs/(rules|api)\.md#([\w-]+)")


def citations() -> list[tuple[str, str, str]]:
    """Every `docs/rules.md#...` or `docs/api.md#...` citation in the code, the page, the tests
    and the benchmarks: (file, document, anchor)."""
    found = []
    for folder in ("src", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in {".py", ".js", ".css", ".html"} or "__pycache__" in path.parts:
                continue
            text = path.read_text()
            found += [(path.name, doc, anchor) for doc, anchor in CITED.findall(text)]
    return found


def test_every_citation_of_the_docs_resolves() -> None:
    """Code, page, tests and benchmarks cite our own docs, never a contract outside the repository:
    each `docs/....md#anchor` they name is a heading or an `<a id>` of that document."""
    assert len(citations()) > 20
    known = {doc: anchors((ROOT / "docs" / f"{doc}.md").read_text()) for doc in ("rules", "api")}
    missing = [f"{name}: docs/{doc}.md#{anchor}" for name, doc, anchor in citations()
               if anchor not in known[doc]]  # fmt: skip
    assert missing == []


def test_nothing_cites_the_spec() -> None:
    """The contract outside the repository is never cited: a clone could not follow it."""
    citing = []
    for folder in ("src", "tests", "benchmarks", "docs"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in {".py", ".js", ".css", ".html", ".md"} or path == HERE:
                continue
            if "SPEC" in path.read_text():
                citing.append(str(path.relative_to(ROOT)))
    assert citing == []


# -- the shapes and examples of docs/api.md, against the server ----------------------------------


def table_under(heading: str, text: str) -> list[list[str]]:
    """The rows of the first table in the section under `heading` (cells as `table_rows`)."""
    body = next(body for title, body in sections(text) if title.lstrip("# ") == heading)
    header = next(line for line in body.splitlines() if line.startswith("| "))
    return table_rows(body, header.strip("| ").split(" |")[0])


def documented_fields(heading: str) -> set[str]:
    """The field names of the table under `heading` in docs/api.md."""
    return {row[0] for row in table_under(heading, API_MD)}


def test_the_round_battle_and_match_tables_name_every_field(make_client: ClientFactory) -> None:
    """The tables of docs/api.md name exactly the fields the server sends in a finished round
    (dealt by hand, so with `piles` and `deal`), a battle record with its steps, and a match."""
    client = make_client()
    round_id = client.post("/api/rounds", json={"deal": [["9S", "KD"], ["9H", "7S"]]}).json()["id"]
    played = client.post(f"/api/rounds/{round_id}/battles", json={"count": 5}).json()
    assert played["round"]["outcome"] is not None
    assert documented_fields("The round") == set(played["round"])
    record = played["battles"][0]
    steps = {f"steps[].{key}" for step in record["steps"] for key in step}
    assert documented_fields("The battle record") == set(record) | steps
    match = client.post("/api/matches", json={"seed": 3}).json()
    assert documented_fields("The match") == set(match) - {"round"}


def examples() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each example of docs/api.md: the body that deals its round, and its first battle."""
    items = re.split(r"^\d+\. ", API_MD.partition("\n## Examples\n")[2], flags=re.MULTILINE)[1:]
    found = []
    for item in items:
        deal = next(span for span in re.findall(r"`([^`]+)`", item) if span.startswith("{"))
        record = re.search(r"```json\n(.*?)```", item, re.DOTALL)
        assert record is not None
        found.append((json.loads(deal), json.loads(record[1])))
    return found


def test_the_examples_are_what_the_server_answers(make_client: ClientFactory) -> None:
    """Each worked example of docs/api.md deals its round and plays the battle it shows."""
    client = make_client()
    found = examples()
    assert len(found) == 5
    for deal, record in found:
        round_id = client.post("/api/rounds", json=deal).json()["id"]
        played = client.post(f"/api/rounds/{round_id}/battles", json={"count": 1}).json()
        assert played["battles"] == [record], deal


# -- docs/findings.md: the longest game, a link away ----------------------------------------------


def longest_game_link() -> tuple[dict[str, Any], str]:
    """What the "watch the longest game" link of docs/findings.md deals, decoded as the page's
    share.js reads a `?deal=` token (JSON, base64url without padding), and the paragraph that
    tells it."""
    paragraph = next(part for part in FINDINGS.split("\n\n") if "Watch the longest game" in part)
    token = re.search(r"\(http://127\.0\.0\.1:8000/\?deal=([A-Za-z0-9_-]+)\)", paragraph)
    assert token, "the paragraph links the game at the table"
    text = token.group(1)
    data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode())
    return data, paragraph


def test_the_longest_game_link_plays_the_game_the_findings_tell() -> None:
    """The link carries the traditional rules (as share.js writes them: the fields that differ
    from classic), a seed and the deal; the engine plays it to the battles and wars
    docs/findings.md says, and `cardwar simulate` finds it again with the command it gives."""
    again, paragraph = longest_game_link()
    assert set(again) == {"rules", "seed", "deal"}
    rules = Rules.from_dict(again["rules"])
    assert rules == PRESETS["traditional"]
    game = Round(rules, seed=again["seed"], deal=again["deal"])
    game.play()
    told = re.search(r"([\d,]+) battles and (\d+) wars", paragraph)
    assert told, "the paragraph says how long the game is"
    assert (f"{game.battles:,}", str(game.wars)) == told.groups()
    assert game.outcome is not None and game.outcome.reason is Reason.ALL_CARDS
    command = re.search(r"`cardwar simulate (--preset traditional [^`]+)`", paragraph)
    assert command, "the paragraph gives the command that found it"
    assert "--records" in command.group(1)


def test_the_server_deals_the_longest_game(make_client: ClientFactory) -> None:
    """What the page sends for the link, the server deals: the same cards, the traditional
    rules, no battle limit."""
    again, _ = longest_game_link()
    client = make_client()
    answer = client.post("/api/rounds", json=again)
    assert answer.status_code == 201, answer.text
    round_ = answer.json()
    assert round_["rules"]["battle_limit"] is None and round_["rules"]["war_down"] == 3
    assert round_["counts"] == [26, 26]
