"""The one renderer of the registered analyses reads the record alone: each committed
record, rendered with the command its report names, gives the committed report byte for
byte, with no run, design or data folder read."""

from __future__ import annotations

import json
import re

import pytest

from warmjax.analysis import render

from ..helpers import ROOT

REPORTS = [("c4_confirm/registered.json", "c4_confirm/registered.md"),
           ("long_horizon/report/long_horizon.json", "long_horizon/report/long_horizon.md"),
           ("fast_recipe/analysis.json", "fast_recipe/analysis.md")]


@pytest.mark.parametrize("record, report", REPORTS)
def test_a_committed_record_renders_its_committed_report(record, report):
    text = (ROOT / "studies" / report).read_text()
    command = re.search(r"Computed by `([^`]*)`", text)[1]
    assert render.markdown(json.loads((ROOT / "studies" / record).read_text()), command) == text


def test_a_record_of_no_known_kind_is_refused():
    with pytest.raises(ValueError, match="no report for a record of kind 'papers'"):
        render.markdown({"plan": {"kind": "papers"}}, "the command")
