"""Analysing runs: grouping run folders into variants, switch and balance tables, Elo per
variant and the I′ sweep, perfect-play curves (`tables`); the warm-start study's statistics
and verdicts (`study`) and their tables (`study_tables`); figures (`plots`, matplotlib, not
imported here).
"""
