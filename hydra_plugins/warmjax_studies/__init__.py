"""Hydra finds each study's own config (`studies/<name>/conf/study/<config>.yaml`), so that
`+study=<config>` works for a study that lives in its folder (`studies_searchpath.py`)."""
