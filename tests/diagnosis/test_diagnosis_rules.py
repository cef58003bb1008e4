"""The classification tables (diagnosis/rules.py): rules name registered codes and yield only those,
the first rule that holds decides, and the last one catches everything; no torch needed."""

from __future__ import annotations

import pytest

from exportlens.codes import CODES, UnknownCodeError
from exportlens.diagnosis.classification import CLASSIFY
from exportlens.diagnosis.kind import Kind
from exportlens.diagnosis.rule import Failure, first_match, rule
from exportlens.diagnosis.rules import AT_CULPRIT, LATER, REFINE, classify


def test_a_rule_with_an_unregistered_code_cannot_be_made() -> None:
    with pytest.raises(UnknownCodeError, match="'no-such-code' is not a registered diagnostic code"):
        rule("typo", "no-such-code", lambda f: True, lambda f: Kind("no-such-code"))


def test_a_rule_yielding_a_code_it_does_not_declare_fails_instead_of_passing_as_another() -> None:
    wrong = rule("says export-error", "export-error", lambda f: True, lambda f: Kind("graph-break"))
    with pytest.raises(UnknownCodeError, match="rule 'says export-error' yielded 'graph-break'"):
        first_match([wrong], Failure({}), lambda k: k.code)


def test_every_rule_has_its_own_name_and_registered_codes() -> None:
    for table in (CLASSIFY, REFINE, AT_CULPRIT, LATER):
        names = [r.name for r in table]
        assert len(names) == len(set(names)), names
        assert all(r.codes and r.codes <= set(CODES) for r in table), table


def test_the_first_rule_that_holds_decides_and_the_last_catches_everything() -> None:
    assert (
        classify({"exc_type": "SystemExit", "exc_mro": ["SystemExit"], "stage": "export"}).code == "user-exit"
    )
    # A script's argparse exiting while being built: the arguments ExportLens never passes
    exited = {"exc_type": "SystemExit", "exc_mro": ["SystemExit"], "message": "2", "stage": "import"}
    assert classify(exited).code == "user-exit"
    parsing = [{"path": "/usr/lib/python3.11/argparse.py", "line": 2630, "name": "error"}]
    assert classify({**exited, "frames": parsing}).code == "inputs-error"
    assert classify({**exited, "frames": parsing, "stage": "export"}).code == "user-exit"
    assert classify({"exc_type": "ValueError", "stage": "import", "message": "bad"}).code == "import-error"
    assert classify({"exc_type": "ValueError", "message": "nobody knows"}) == Kind(
        "export-error", "ValueError: nobody knows"
    )
    assert CLASSIFY[-1].when(Failure({})) and CLASSIFY[-1].codes == {"export-error"}
