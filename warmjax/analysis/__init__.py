"""Analysing runs, one way: run folders and tournaments → the model (`model`: arms and
families, built by `study`) → pure statistics and the verdict rule (`stats`) → the claims
(`claims`), the floor rule and time to strength (`strength`, `survival`, `compute`) → the
record (`record`: study.json; `registered` for a registered analysis) → Markdown and figures
(`study_tables`, `tables`, `plots`), written by `report`. Nothing is imported here.
"""
