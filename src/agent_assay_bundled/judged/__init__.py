"""Judged variants of bundled systems and the labelled sets their judges are measured on."""
