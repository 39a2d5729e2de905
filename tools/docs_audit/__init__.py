"""The documents' checks: generated regions rendered from reports/ (readme-check), every
number backed by a command (number-audit), claims written in code (evidence), and the
site's build hook that hides the regions' markers."""
