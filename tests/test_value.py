"""`Value`, the read-only base the hook's values share: equal, hashed and copied by field."""

from __future__ import annotations

import copy
import pickle

import pytest

from abcd.gate import Finding
from abcd.session.brackets import bracket_for
from abcd.session.events import ItemRecalled
from abcd.session.fill import Fill


def test_values_are_equal_and_hashed_by_their_fields_and_class() -> None:
    assert Finding("secret: github token", "body") == Finding("secret: github token", "body")
    assert len({Finding("a", "b"), Finding("a", "b"), Finding("a", "c")}) == 2
    assert Fill(10.0, "statusline") != Finding("10.0", "statusline")


def test_a_value_cannot_be_changed_once_built() -> None:
    finding = Finding("private name", "title")
    with pytest.raises(AttributeError):
        finding.kind = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del finding.field


@pytest.mark.parametrize(
    "value",
    [
        Finding("network: ipv4 address", "recall[2]"),
        bracket_for(Fill(55.0, "transcript")),
        ItemRecalled(key="mem-0000000000000001", signature="ab", form="line"),
    ],
)
def test_copy_and_pickle_rebuild_an_equal_value_whatever_the_constructor(value: object) -> None:
    assert copy.copy(value) == value
    assert copy.deepcopy(value) == value
    assert pickle.loads(pickle.dumps(value)) == value
    assert repr(value).startswith(type(value).__name__ + "(")
